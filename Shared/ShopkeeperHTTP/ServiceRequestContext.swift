import Hummingbird
import ShopkeeperCore
import ShopkeeperModels

/// The request context of every Shopkeeper service.
///
/// Carries the identity an internal call was signed with (set by ``InternalAuthMiddleware``). Handlers that need
/// an identity use ``requireCaller()`` rather than reading headers.
package struct ServiceRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The app and key kind the gateway authenticated, once the signature was checked.
    package var caller: InternalCaller?

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.caller = nil
    }

    /// The verified caller; throws 401 when the call carried none.
    package func requireCaller() throws(AuthError) -> InternalCaller {
        guard let caller else { throw AuthError.missingIdentity }
        return caller
    }

    /// The verified caller, which must hold a secret key; throws 403 otherwise.
    package func requireSecretCaller() throws(AuthError) -> InternalCaller {
        let caller = try requireCaller()
        guard caller.keyKind == .secret else { throw AuthError.secretKeyRequired }
        return caller
    }

    /// The verified caller (``requireSecretCaller()`` when `secretKey`, else ``requireCaller()``), then the customer
    /// the route names in `{app_user_id}` (``AppUserID/fromPath(_:)``): who asks, and about whom.
    package func requireCallerAndCustomer(secretKey: Bool = false) throws -> (caller: InternalCaller, appUserID: String)
    {
        let caller = try secretKey ? requireSecretCaller() : requireCaller()
        return (caller, try AppUserID.fromPath(self))
    }
}
