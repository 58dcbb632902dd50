/// The Stripe API version Shopkeeper speaks, sent as `Stripe-Version` on every call to Stripe's API and expected as
/// the `api_version` of the events its webhook endpoints receive. Pinned so that an account's default version (set
/// in Stripe's dashboard) never changes the shapes Shopkeeper reads. It is the version the pinned Stripe Python
/// library (`Tests/StripeLibrary/requirements.txt`, `stripe==16.1.0`) sends, so the sandbox store's answers are
/// checked against the client Stripe ships for it.
package enum StripeAPIVersion {
    /// `Stripe-Version` header value.
    package static let current = "2026-10-28.endive"
}
