import Foundation

extension Shopkeeper {
    /// Attaches what was bought on the web before having an account: `code` is the one-time redemption code the web
    /// shop showed (as typed: case, spaces and hyphens do not matter). The purchases move to the current user, once;
    /// sending the same code again as the same user answers the same. Answers the user's info, published to
    /// observers like any change.
    ///
    /// Errors by `code`: `redemption_code_not_found` (mistyped, or of another app), `redemption_code_used` (another
    /// user redeemed it), `redemption_code_expired`, `nothing_to_redeem` (the web payment has not arrived yet: the
    /// code stays valid, try again shortly).
    public func redeem(code: String) async throws(ShopkeeperError) -> CustomerInfo {
        let info = try await api.redeem(appUserID: state.appUserID, code: code)
        publish(info)
        return info
    }
}
