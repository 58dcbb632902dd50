import Foundation
import ShopkeeperStores
import Testing

/// The stores' notification wire formats decode from the JSON the stores document and encode back with their names.
@Suite struct StoreNotificationModelTests {
    func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func anAppleSubscriptionNotificationDecodesAndEncodesWithApplesNames() throws {
        let json = """
            {"notificationType":"DID_FAIL_TO_RENEW","subtype":"GRACE_PERIOD",
             "notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20","version":"2.0","signedDate":1698148900000,
             "data":{"appAppleId":41234,"bundleId":"com.example","bundleVersion":"1.2.3","environment":"Sandbox",
                     "signedTransactionInfo":"t.t.t","signedRenewalInfo":"r.r.r","status":4}}
            """
        let payload = try JSONDecoder().decode(AppleNotificationPayload.self, from: Data(json.utf8))
        #expect(payload.type == .didFailToRenew && payload.typedSubtype == .gracePeriod)
        #expect(payload.environment == "Sandbox" && payload.signedDate == 1_698_148_900_000)
        #expect(
            payload.data?.status == 4 && payload.data?.appAppleId == 41234 && payload.data?.bundleVersion == "1.2.3")
        let encoded = try object(payload)
        #expect(encoded["notificationUUID"] as? String == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        let data = try #require(encoded["data"] as? [String: Any])
        #expect(data["signedTransactionInfo"] as? String == "t.t.t" && data["signedRenewalInfo"] as? String == "r.r.r")
        #expect(try JSONDecoder().decode(AppleNotificationPayload.self, from: JSONEncoder().encode(payload)) == payload)
    }

    @Test func summaryExternalPurchaseTokenAndAppDataPayloadsDecode() throws {
        let summary = """
            {"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"u1","version":"2.0",
             "signedDate":1698148900000,"summary":{"requestIdentifier":"req","environment":"LocalTesting",
             "appAppleId":41234,"bundleId":"com.example","productId":"p","storefrontCountryCodes":["CAN","USA"],
             "succeededCount":5,"failedCount":2}}
            """
        let extended = try JSONDecoder().decode(AppleNotificationPayload.self, from: Data(summary.utf8))
        #expect(extended.summary?.storefrontCountryCodes == ["CAN", "USA"] && extended.summary?.failedCount == 2)
        #expect(extended.environment == "LocalTesting" && extended.data == nil)
        let token = """
            {"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","notificationUUID":"u2",
             "version":"2.0","signedDate":1698148900000,"externalPurchaseToken":{
             "externalPurchaseId":"b2158121-7af9-49d4-9561-1f588205523e","tokenCreationDate":1698148950000,
             "appAppleId":55555,"bundleId":"com.example"}}
            """
        let external = try JSONDecoder().decode(AppleNotificationPayload.self, from: Data(token.utf8))
        #expect(external.type == .externalPurchaseToken && external.typedSubtype == .unreported)
        #expect(external.externalPurchaseToken?.tokenCreationDate == 1_698_148_950_000)
        #expect(external.externalPurchaseToken?.bundleId == "com.example")
        let consent = """
            {"notificationType":"RESCIND_CONSENT","notificationUUID":"u3","version":"2.0","signedDate":1,
             "appData":{"appAppleId":41234,"bundleId":"com.example","environment":"LocalTesting",
             "signedAppTransactionInfo":"a.a.a"}}
            """
        let rescinded = try JSONDecoder().decode(AppleNotificationPayload.self, from: Data(consent.utf8))
        #expect(rescinded.type == .rescindConsent && rescinded.appData?.signedAppTransactionInfo == "a.a.a")
        #expect(rescinded.environment == "LocalTesting")
    }

    @Test func aTypeAppleAddsLaterStillDecodes() throws {
        let json = #"{"notificationType":"SOMETHING_NEW","subtype":"NEWER","notificationUUID":"u"}"#
        let payload = try JSONDecoder().decode(AppleNotificationPayload.self, from: Data(json.utf8))
        #expect(payload.notificationType == "SOMETHING_NEW" && payload.type == nil && payload.typedSubtype == nil)
    }

    @Test func theAppleRequestBodyIsSignedPayload() throws {
        let body = try JSONDecoder().decode(AppleResponseBodyV2.self, from: Data(#"{"signedPayload":"a.b.c"}"#.utf8))
        #expect(body.signedPayload == "a.b.c")
        #expect(try object(body).keys.sorted() == ["signedPayload"])
    }

    /// Google's documented push: the envelope with both id spellings and a notification whose `eventTimeMillis` is a
    /// JSON string.
    @Test func aPubSubPushOfAPlayNotificationDecodes() throws {
        let notification = """
            {"version":"1.0","packageName":"com.some.thing","eventTimeMillis":"1503349566168",
             "subscriptionNotification":{"version":"1.0","notificationType":4,
             "purchaseToken":"PURCHASE_TOKEN","subscriptionId":"monthly001"}}
            """
        let envelope = """
            {"message":{"attributes":{"key":"value"},"data":"\(Data(notification.utf8).base64EncodedString())",
             "messageId":"136969346945","message_id":"136969346945","publishTime":"2021-02-26T19:13:55.749Z",
             "publish_time":"2021-02-26T19:13:55.749Z"},
             "subscription":"projects/myproject/subscriptions/mysubscription"}
            """
        let push = try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(envelope.utf8))
        #expect(push.message.id == "136969346945" && push.message.attributes == ["key": "value"])
        #expect(push.subscription == "projects/myproject/subscriptions/mysubscription")
        let decoded = try #require(push.message.developerNotification)
        #expect(decoded.eventTimeMillis == "1503349566168" && decoded.packageName == "com.some.thing")
        #expect(decoded.subscriptionNotification?.type == .purchased)
        #expect(decoded.subscriptionNotification?.subscriptionId == "monthly001")
        // Only the snake_case id: still found.
        let snake = #"{"message":{"data":"e30=","message_id":"7"},"subscription":"s"}"#
        #expect(push.message.developerNotification?.kind == "subscription.purchased")
        #expect(try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(snake.utf8)).message.id == "7")
    }

    @Test func playNotificationsEncodeAsGoogleWritesThem() throws {
        let voided = GoogleDeveloperNotification(
            packageName: "com.some.thing", eventTimeMillis: "1503349566168",
            voidedPurchaseNotification: .init(
                purchaseToken: "T", orderId: "GPA.1", productType: GoogleVoidedProductType.oneTime.rawValue,
                refundType: GoogleRefundType.quantityBasedPartialRefund.rawValue))
        let encoded = try object(voided)
        #expect(encoded["eventTimeMillis"] as? String == "1503349566168" && encoded["version"] as? String == "1.0")
        let inner = try #require(encoded["voidedPurchaseNotification"] as? [String: Any])
        #expect(
            inner["productType"] as? Int == 2 && inner["refundType"] as? Int == 2
                && inner["orderId"] as? String == "GPA.1")
        #expect(encoded["subscriptionNotification"] == nil)
        let numeric = #"{"packageName":"p","eventTimeMillis":12,"testNotification":{"version":"1.0"}}"#
        let test = try JSONDecoder().decode(GoogleDeveloperNotification.self, from: Data(numeric.utf8))
        #expect(test.eventTimeMillis == "12" && test.testNotification?.version == "1.0" && test.kind == "test")
        let oneTime =
            #"{"packageName":"p","oneTimeProductNotification":{"notificationType":2,"purchaseToken":"t","sku":"s"}}"#
        let canceled = try JSONDecoder().decode(GoogleDeveloperNotification.self, from: Data(oneTime.utf8))
        #expect(canceled.oneTimeProductNotification?.type == .canceled && canceled.kind == "one_time.2")
        let envelope = try PubSubPushEnvelope(
            notification: voided, messageId: "9", publishTime: "2021-02-26T19:13:55.749Z", subscription: "s")
        #expect(envelope.message.developerNotification == voided)
        let wire = try object(envelope)
        let message = try #require(wire["message"] as? [String: Any])
        #expect(message["messageId"] as? String == "9" && message["message_id"] as? String == "9")
        #expect(message["publish_time"] as? String == "2021-02-26T19:13:55.749Z")
    }

    @Test func theNotificationTypeNumbersAreGoogles() {
        let expected: [(GoogleSubscriptionNotificationType, Int)] = [
            (.recovered, 1), (.renewed, 2), (.canceled, 3), (.purchased, 4), (.onHold, 5), (.inGracePeriod, 6),
            (.restarted, 7), (.revoked, 12), (.expired, 13), (.pendingPurchaseCanceled, 20),
        ]
        for (type, number) in expected { #expect(type.rawValue == number) }
        #expect(GoogleOneTimeProductNotificationType.purchased.rawValue == 1)
    }

    @Test func aJSONWebKeyRoundTripsAnRSAKey() throws {
        let json = """
            {"keys":[{"kty":"RSA","alg":"RS256","use":"sig","kid":"k1","e":"AQAB",
              "n":"\(Base64URL.encode([UInt8](repeating: 0xC3, count: 256)))"}]}
            """
        let set = try JSONDecoder().decode(GoogleJSONWebKeySet.self, from: Data(json.utf8))
        let key = try #require(set.key(id: "k1"))
        let publicKey = try #require(key.publicKey)
        #expect(publicKey.keySizeInBits == 2048)
        #expect(try GoogleJSONWebKeySet.Key(publicKey: publicKey, kid: "k1") == key)
        #expect(set.key(id: "k2") == nil)
        let claims = GooglePushTokenClaims(
            aud: "https://example.com/push", azp: "1", email: "push@p.iam.gserviceaccount.com", sub: "1", iat: 1,
            exp: 3601)
        let encoded = try object(claims)
        #expect(
            encoded["email_verified"] as? Bool == true && encoded["iss"] as? String == "https://accounts.google.com")
    }
}
