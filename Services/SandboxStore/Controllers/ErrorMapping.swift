import Hummingbird
import ShopkeeperHTTP

/// The one place domain errors and faults become each surface's errors.
enum ErrorMapping {
    /// Runs `body` for the App Store Server API: domain errors become Apple's error payloads.
    static func apple<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SandboxStoreError {
            switch error {
            case .transactionNotFound, .originalTransactionNotFound: throw AppleAPIError.api(.transactionIdNotFound)
            default: throw AppleAPIError.api(.generalInternal)
            }
        }
    }

    /// Runs `body` for the Play Developer API: domain errors become Google's error JSON.
    static func google<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SandboxStoreError {
            switch error {
            case .purchaseNotFound: throw GoogleAPIError.invalidValue
            case .invalidPurchaseState: throw GoogleAPIError.invalidPurchaseState
            case .serviceAccountNotFound: throw GoogleAPIError.permissionDenied
            default: throw GoogleAPIError.fault(500)
            }
        }
    }

    /// Runs `body` for a `/sandbox` control: domain errors become problem+json.
    static func control<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SandboxStoreError {
            throw controlError(error)
        }
    }

    static func controlError(_ error: SandboxStoreError) -> SandboxControlError {
        switch error {
        case .transactionNotFound(let id):
            SandboxControlError(status: .notFound, code: "transaction_not_found", detail: "No transaction \(id).")
        case .originalTransactionNotFound(let id):
            SandboxControlError(
                status: .unprocessableContent, code: "original_transaction_not_found",
                detail: "original_transaction_id \(id) names no transaction.")
        case .notRenewable(let id):
            SandboxControlError(
                status: .unprocessableContent, code: "not_renewable",
                detail: "Transaction \(id) is not an auto-renewable subscription of this app, or the new one is not.")
        case .alreadyRevoked(let id):
            SandboxControlError(
                status: .conflict, code: "already_revoked", detail: "Transaction \(id) is already refunded or revoked.")
        case .purchaseNotFound:
            SandboxControlError(status: .notFound, code: "purchase_not_found", detail: "No purchase with this token.")
        case .invalidPurchaseState(let reason):
            SandboxControlError(status: .conflict, code: "invalid_purchase_state", detail: reason)
        case .itemAlreadyOwned(let product):
            SandboxControlError(
                status: .conflict, code: "item_already_owned",
                detail: "The buyer owns \(product) and has not consumed it (Play Billing's ITEM_ALREADY_OWNED).")
        case .serviceAccountNotFound(let name):
            SandboxControlError(
                status: .notFound, code: "service_account_not_found", detail: "No service account \(name).")
        case .invalidSubscriptionState(let reason):
            SandboxControlError(status: .conflict, code: "invalid_subscription_state", detail: reason)
        case .notificationNotFound(let id):
            SandboxControlError(
                status: .notFound, code: "notification_not_found", detail: "No notification \(id) was sent.")
        case .notificationURLNotSet(let store):
            SandboxControlError(
                status: .conflict, code: "notification_url_not_set",
                detail: "No \(store) notification URL is set (PUT /sandbox/notifications).")
        }
    }

    /// The failure an injected fault with HTTP `status` produces at `endpoint`.
    static func fault(_ status: Int, at endpoint: StoreEndpoint) -> any Error {
        switch endpoint.family {
        case .apple: AppleAPIError.fault(status)
        case .googleAPI: GoogleAPIError.fault(status)
        case .googleOAuth: GoogleOAuthError.fault(status)
        case .stripe: StripeFault(status: status)
        }
    }
}

extension StoreTraffic {
    /// Counts a call to an App Store Server API endpoint of `host`, suffers its fault, and maps domain errors to
    /// Apple's (``ErrorMapping/apple(_:)``).
    nonisolated func observeApple<T>(
        _ host: AppleHost, _ api: StoreEndpoint.AppleAPI, _ body: () async throws -> T
    ) async throws -> T {
        try await observe(.apple(host, api)) { _ in try await ErrorMapping.apple { try await body() } }
    }

    /// Counts a call to `endpoint`, suffers its fault (delay, then failure) if one is set, and runs `body` with what
    /// is left of the fault (an Apple status for `verifyReceipt`).
    nonisolated func observe<T>(
        _ endpoint: StoreEndpoint, _ body: (FaultAction?) async throws -> T
    ) async throws -> T {
        let action = await record(endpoint)
        if let delay = action?.delay {
            try await Task.sleep(for: delay)
        }
        if let status = action?.status {
            throw ErrorMapping.fault(status, at: endpoint)
        }
        return try await body(action)
    }
}
