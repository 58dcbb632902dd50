// A stand-in for Apple's StoreKit with the declarations ShopkeeperKit uses, shaped as the SDK declares them, to
// type-check StoreKitDeviceStore on Linux. Not Apple's code; not shipped.
import Foundation

public struct Product: Sendable {
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
    public struct PurchaseOption: Hashable, Sendable {
        let name: String
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { .init(name: "token \(token)") }
        public static func quantity(_ quantity: Int) -> PurchaseOption { .init(name: "quantity \(quantity)") }
        public static func promotionalOffer(
            offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int
        ) -> PurchaseOption { .init(name: "offer \(offerID)") }
    }
    public enum PurchaseResult: Sendable {
        case success(VerificationResult<Transaction>)
        case userCancelled
        case pending
    }
    public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
    where Identifiers.Element == String { [] }
    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult { .userCancelled }

    public let id: String
    public let type: ProductType
    public let displayName: String
    public let description: String
    public let price: Decimal
    public let displayPrice: String
    public let priceFormatStyle: Decimal.FormatStyle.Currency
    public let subscription: SubscriptionInfo?

    public struct SubscriptionInfo: Sendable {
        public let introductoryOffer: SubscriptionOffer?
        public let subscriptionGroupID: String
        public let subscriptionPeriod: SubscriptionPeriod
    }
    public struct SubscriptionPeriod: Equatable, Hashable, Sendable {
        public enum Unit: Equatable, Hashable, Sendable {
            case day, week, month, year
        }
        public let unit: Unit
        public let value: Int
    }
    public struct SubscriptionOffer: Equatable, Hashable, Sendable {
        public struct PaymentMode: RawRepresentable, Equatable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let payAsYouGo = PaymentMode(rawValue: "PayAsYouGo")
            public static let payUpFront = PaymentMode(rawValue: "PayUpFront")
            public static let freeTrial = PaymentMode(rawValue: "FreeTrial")
        }
        public let id: String?
        public let displayPrice: String
        public let price: Decimal
        public let paymentMode: PaymentMode
        public let period: SubscriptionPeriod
        public let periodCount: Int
    }
}

public struct Storefront: Sendable {
    public let countryCode: String
    public let id: String
    public static var current: Storefront? { get async { nil } }
}

public enum VerificationResult<SignedType: Sendable>: Sendable {
    case unverified(SignedType, VerificationError)
    case verified(SignedType)
    public enum VerificationError: Error, Sendable { case invalidSignature }
    public var unsafePayloadValue: SignedType {
        switch self {
        case .unverified(let value, _), .verified(let value): value
        }
    }
    public var jwsRepresentation: String { "" }
}

public struct Transaction: Sendable {
    public let id: UInt64
    public let productID: String
    public let appAccountToken: UUID?
    public let productType: Product.ProductType
    public func finish() async {}
    public struct Transactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<Transaction>
        public struct AsyncIterator: AsyncIteratorProtocol {
            public mutating func next() async -> VerificationResult<Transaction>? { nil }
        }
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }
    public static var unfinished: Transactions { Transactions() }
    public static var currentEntitlements: Transactions { Transactions() }
    public static var updates: Transactions { Transactions() }
}

public enum AppStore {
    public static var canMakePayments: Bool { true }
    public struct Environment: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

public struct AppTransaction: Sendable {
    public let environment: AppStore.Environment
    public static var shared: VerificationResult<AppTransaction> {
        get async throws { .verified(AppTransaction(environment: AppStore.Environment(rawValue: "Sandbox"))) }
    }
}

