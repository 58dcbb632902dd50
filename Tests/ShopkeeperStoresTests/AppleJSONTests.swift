import Foundation
import ShopkeeperStores
import Testing

@Suite struct AppleJSONTests {
    @Test func fractionalMillisecondDatesAreFlooredOnlyInDateFields() throws {
        let json = """
            {"transactionId":"1","purchaseDate":1697679936056.485,"signedDate":1697679936999.999,"price":1990,
            "quantity":1,"environment":"Xcode"}
            """
        let payload = try AppleJSON.decode(AppleTransactionPayload.self, from: Data(json.utf8))
        #expect(payload.purchaseDate == 1_697_679_936_056)
        #expect(payload.signedDate == 1_697_679_936_999)
        #expect(payload.price == 1990)
    }

    @Test func nestedDatesOfANotificationAreFloored() throws {
        let json = """
            {"notificationType":"EXTERNAL_PURCHASE_TOKEN","notificationUUID":"u","signedDate":1697679936056.5,
            "externalPurchaseToken":{"externalPurchaseId":"SANDBOX_1","tokenCreationDate":1697679936000.25}}
            """
        let payload = try AppleJSON.decode(AppleNotificationPayload.self, from: Data(json.utf8))
        #expect(payload.signedDate == 1_697_679_936_056)
        #expect(payload.externalPurchaseToken?.tokenCreationDate == 1_697_679_936_000)
        #expect(payload.environment == "Sandbox")
    }

    @Test func aFractionOutsideADateFieldIsStillRefused() {
        let json = #"{"transactionId":"1","price":19.5,"signedDate":1}"#
        #expect(throws: DecodingError.self) {
            _ = try AppleJSON.decode(AppleTransactionPayload.self, from: Data(json.utf8))
        }
    }
}
