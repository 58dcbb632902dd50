import Foundation
import ShopkeeperStores
import Testing

@Suite struct VerifyReceiptTests {
    func jsonObject(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func response() -> VerifyReceiptResponse {
        let receipt = ReceiptFixtures.receipt(creationDate: ReceiptFixtures.newYearNoon)
        var renewal = VerifyReceiptResponse.PendingRenewalInfo(
            originalTransactionId: "1000000000000002", productId: "com.example.monthly")
        renewal.expirationIntent = "2"
        renewal.isInBillingRetryPeriod = "1"
        renewal.gracePeriodExpiresAt = ReceiptFixtures.newYearNoon.addingTimeInterval(16 * 86_400)
        return VerifyReceiptResponse(
            status: .valid, environment: "Sandbox",
            receipt: VerifyReceiptResponse.Receipt(receipt, requestDate: ReceiptFixtures.newYearNoon),
            latestReceiptInfo: receipt.inAppPurchases.map { VerifyReceiptResponse.InApp($0) },
            latestReceipt: "MIIT", pendingRenewalInfo: [renewal]
        )
    }

    @Test func responseEncodesWithApplesKeysAndFormats() throws {
        let json = try jsonObject(response())
        #expect(
            Set(json.keys) == [
                "status", "environment", "receipt", "latest_receipt_info", "latest_receipt", "pending_renewal_info",
            ])
        #expect(json["status"] as? Int == 0)
        let receipt = try #require(json["receipt"] as? [String: Any])
        #expect(receipt["bundle_id"] as? String == "com.example.shöp")
        #expect(receipt["application_version"] as? String == "42")
        #expect(receipt["original_application_version"] as? String == "1.0")
        #expect(receipt["receipt_type"] as? String == "ProductionSandbox")
        #expect(receipt["receipt_creation_date"] as? String == "2023-01-01 12:00:00 Etc/GMT")
        #expect(receipt["receipt_creation_date_ms"] as? String == "1672574400000")
        #expect(receipt["receipt_creation_date_pst"] as? String == "2023-01-01 04:00:00 America/Los_Angeles")
        #expect(receipt["request_date_ms"] as? String == "1672574400000")
        #expect(receipt["adam_id"] as? Int == 0)
        #expect(receipt["expiration_date"] == nil)

        let inApp = try #require((receipt["in_app"] as? [[String: Any]])?.last)
        #expect(inApp["quantity"] as? String == "1")
        #expect(inApp["product_id"] as? String == "com.example.monthly")
        #expect(inApp["transaction_id"] as? String == "1000000000000003")
        #expect(inApp["original_transaction_id"] as? String == "1000000000000002")
        #expect(inApp["purchase_date"] as? String == "2023-01-01 12:00:00 Etc/GMT")
        #expect(inApp["purchase_date_ms"] as? String == "1672574400000")
        #expect(inApp["expires_date"] as? String == "2023-01-31 12:00:00 Etc/GMT")
        #expect(inApp["cancellation_date_ms"] as? String == "1672660800500")
        #expect(inApp["web_order_line_item_id"] as? String == "1000000000000042")
        #expect(inApp["is_trial_period"] as? String == "true")
        #expect(inApp["is_in_intro_offer_period"] as? String == "false")
        #expect(inApp["in_app_ownership_type"] as? String == "PURCHASED")
        #expect(inApp["promotional_offer_id"] as? String == "winback")

        let renewal = try #require((json["pending_renewal_info"] as? [[String: Any]])?.first)
        #expect(renewal["auto_renew_product_id"] as? String == "com.example.monthly")
        #expect(renewal["auto_renew_status"] as? String == "1")
        #expect(renewal["expiration_intent"] as? String == "2")
        #expect(renewal["is_in_billing_retry_period"] as? String == "1")
        #expect(renewal["grace_period_expires_date_ms"] as? String == "1673956800000")
    }

    @Test func responseDecodesBackEqualAndPurchasesRoundTrip() throws {
        let original = response()
        let decoded = try JSONDecoder().decode(VerifyReceiptResponse.self, from: JSONEncoder().encode(original))
        #expect(decoded == original)
        let purchases = try (decoded.latestReceiptInfo ?? []).map { try AppReceipt.InAppPurchase($0) }
        #expect(purchases == ReceiptFixtures.receipt().inAppPurchases)
        #expect(decoded.pendingRenewalInfo?.first?.gracePeriodExpiresAt == Date(timeIntervalSince1970: 1_673_956_800))
    }

    @Test func decodesApplesOwnResponse() throws {
        let json = """
            {"status": 21006, "environment": "Production", "is-retryable": 1, "latest_receipt": "MIIT",
             "receipt": {"receipt_type": "Production", "adam_id": 123, "app_item_id": 123,
              "bundle_id": "com.example.app", "application_version": "3", "download_id": 5,
              "version_external_identifier": 0, "request_date_ms": "1412191909555", "in_app": [
               {"quantity": "1", "product_id": "monthly", "transaction_id": "1000000131413546",
                "original_transaction_id": "1000000131413546", "purchase_date": "2014-11-12 15:25:30 Etc/GMT",
                "purchase_date_ms": "1415805930044", "purchase_date_pst": "2014-11-12 07:25:30 America/Los_Angeles",
                "original_purchase_date": "2014-11-12 15:07:34 Etc/GMT", "original_purchase_date_ms": "1415804854000",
                "original_purchase_date_pst": "2014-11-12 07:07:34 America/Los_Angeles",
                "expires_date": "2014-11-12 15:30:30 Etc/GMT", "expires_date_ms": "1415806230000",
                "expires_date_pst": "2014-11-12 07:30:30 America/Los_Angeles", "is_trial_period": "false",
                "web_order_line_item_id": "1000000028817186", "in_app_ownership_type": "FAMILY_SHARED",
                "subscription_group_identifier": "20455171", "unknown_future_field": "ignored"}]},
             "pending_renewal_info": [{"auto_renew_product_id": "yearly", "auto_renew_status": "0",
              "original_transaction_id": "1000000131413546", "product_id": "monthly", "expiration_intent": "1"}]}
            """
        let response = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(json.utf8))
        #expect(response.status == .subscriptionExpired)
        #expect(response.isRetryable == true)
        #expect(response.receipt?.adamId == 123)
        let inApp = try #require(response.receipt?.inApp.first)
        #expect(inApp.inAppOwnershipType == "FAMILY_SHARED")
        #expect(inApp.subscriptionGroupIdentifier == "20455171")
        let purchase = try AppReceipt.InAppPurchase(inApp)
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_415_805_930.044))
        #expect(purchase.expiresDate == Date(timeIntervalSince1970: 1_415_806_230))
        #expect(purchase.webOrderLineItemId == 1_000_000_028_817_186)
        #expect(purchase.isTrialPeriod == false)
        #expect(response.pendingRenewalInfo?.first?.autoRenewStatus == "0")
        #expect(response.pendingRenewalInfo?.first?.autoRenewProductId == "yearly")
    }

    @Test func unreadableInAppValuesAreFieldErrors() throws {
        var inApp = VerifyReceiptResponse.InApp(ReceiptFixtures.receipt().inAppPurchases[0])
        inApp.purchaseDateMs = "2023-01-01"
        #expect(throws: VerifyReceiptResponse.FieldError(field: "purchase_date_ms", value: "2023-01-01")) {
            try AppReceipt.InAppPurchase(inApp)
        }
        inApp = VerifyReceiptResponse.InApp(ReceiptFixtures.receipt().inAppPurchases[0])
        inApp.isTrialPeriod = "maybe"
        #expect(throws: VerifyReceiptResponse.FieldError(field: "is_trial_period", value: "maybe")) {
            try AppReceipt.InAppPurchase(inApp)
        }
    }

    @Test func requestUsesApplesKeys() throws {
        let request = VerifyReceiptRequest(receiptData: "MIIT", password: "secret", excludeOldTransactions: true)
        let json = try jsonObject(request)
        #expect(json["receipt-data"] as? String == "MIIT")
        #expect(json["password"] as? String == "secret")
        #expect(json["exclude-old-transactions"] as? Bool == true)
        #expect(try JSONDecoder().decode(VerifyReceiptRequest.self, from: JSONEncoder().encode(request)) == request)
        let minimal = try JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(#"{"receipt-data":"x"}"#.utf8))
        #expect(minimal == VerifyReceiptRequest(receiptData: "x"))
    }

    @Test func statusTable() throws {
        let retryable = [21002, 21005, 21009, 21100, 21150, 21199]
        let final = [0, 21000, 21001, 21003, 21004, 21006, 21007, 21008, 21010, 21099, 21200, 42]
        for code in retryable {
            #expect(VerifyReceiptStatus(code: code).isRetryable, "\(code) should be retryable")
        }
        for code in final {
            #expect(!VerifyReceiptStatus(code: code).isRetryable, "\(code) should not be retryable")
        }
        for code in retryable + final {
            #expect(VerifyReceiptStatus(code: code).code == code)
            let json = try JSONEncoder().encode(VerifyReceiptResponse(status: VerifyReceiptStatus(code: code)))
            #expect(try JSONDecoder().decode(VerifyReceiptResponse.self, from: json).status.code == code)
        }
        #expect(VerifyReceiptStatus(code: 21007) == .sandboxReceiptSentToProduction)
        #expect(VerifyReceiptStatus(code: 21150) == .internalError(21150))
        #expect(VerifyReceiptStatus(code: 21200) == .unknown(21200))
    }

    @Test func retryableErrorResponse() throws {
        let response = VerifyReceiptResponse(status: VerifyReceiptStatus(code: 21100), isRetryable: true)
        let json = try jsonObject(response)
        #expect(json["status"] as? Int == 21100)
        #expect(json["is-retryable"] as? Bool == true)
        #expect(Set(json.keys) == ["status", "is-retryable"])
    }

    @Test func pacificTimeFollowsDaylightSaving() throws {
        let summer = AppReceipt.InAppPurchase(
            productId: "p", transactionId: "t", purchaseDate: Date(timeIntervalSince1970: 1_688_212_800))
        let inApp = VerifyReceiptResponse.InApp(summer)
        #expect(inApp.purchaseDate == "2023-07-01 12:00:00 Etc/GMT")
        #expect(inApp.purchaseDatePst == "2023-07-01 05:00:00 America/Los_Angeles")
        let leapDay = VerifyReceiptResponse.InApp(
            AppReceipt.InAppPurchase(
                productId: "p", transactionId: "t", purchaseDate: Date(timeIntervalSince1970: 1_709_164_800.999)))
        #expect(leapDay.purchaseDate == "2024-02-29 00:00:00 Etc/GMT")
        #expect(leapDay.purchaseDateMs == "1709164800999")
        #expect(leapDay.purchaseDatePst == "2024-02-28 16:00:00 America/Los_Angeles")
    }
}
