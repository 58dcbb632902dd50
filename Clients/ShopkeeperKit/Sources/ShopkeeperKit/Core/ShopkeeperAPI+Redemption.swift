import Foundation

extension ShopkeeperAPI {
    /// `POST /v1/customers/{app_user_id}/redeem`: move the web purchases a redemption code stands for to this
    /// customer (once; the same customer may send it again, for instance after a lost answer).
    public func redeem(appUserID: String, code: String) async throws(ShopkeeperError) -> CustomerInfo {
        try await send(
            APIRequest(
                method: "POST", path: "/v1/customers/\(Self.segment(appUserID))/redeem", customer: appUserID,
                body: try Self.encode(["code": code])),
            as: CustomerInfo.self)
    }
}
