import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// `GET /google/oauth2/v3/certs`: the keys the sandbox signs Pub/Sub push tokens with, as Google publishes its own
/// (`https://www.googleapis.com/oauth2/v3/certs`); a verifier configured for development fetches these instead.
struct GooglePushKeysController {
    let keySet: GoogleJSONWebKeySet

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("oauth2/v3/certs") { _, _ in
            try JSONBody.response(keySet, headers: [.cacheControl: "public, max-age=3600"])
        }
        return routes
    }
}
