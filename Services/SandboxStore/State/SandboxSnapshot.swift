import Foundation
import ShopkeeperStores

/// Everything the sandbox store remembers, as written to `state.json` (the snapshot ``StateJournal`` compacts its log
/// into). The JSON is that of the `state.json` the sandbox rewrote whole on every change before the log (format 1):
/// such a file is read as the snapshot of generation 0, and fields added since decode as empty when absent.
struct SandboxSnapshot: JournaledState, Sendable, Equatable {
    /// 2 since changes go to a log (``logGeneration``).
    static let formatVersion = 2
    /// The file format: 2 since changes go to a log (``logGeneration``).
    var version = 2
    /// The log that continues this snapshot: `state.<logGeneration>.log`. Absent (0) in format 1.
    var logGeneration = 0
    /// The next App Store transaction id (numeric, as Apple's).
    var nextTransactionNumber: Int64 = 2_000_000_000_000_000 + Int64.random(in: 0..<1_000_000) * 1000
    var nextWebOrderLineItemNumber: Int64 = 2_000_000_000_000_000 + Int64.random(in: 0..<1_000_000) * 1000
    var appleTransactions = JournaledList<AppleTransactionRecord>()
    var appleKeys = JournaledList<AppleAPIKeyRecord>()
    /// Bundle id -> the app-specific shared secret of `verifyReceipt`.
    var appleSharedSecrets = JournaledMap<String>()
    var googleAccounts = JournaledList<GoogleServiceAccountRecord>()
    var googleAccessTokens = JournaledList<GoogleAccessTokenRecord>()
    var googlePurchases = JournaledList<GooglePurchaseRecord>()
    var googleVoided = JournaledList<GoogleVoidedRecord>()
    /// Original transaction id -> how the clock moves that subscription.
    var appleSchedules = JournaledMap<AppleRenewalSchedule>()
    /// `apple:<bundle id>` or `google:<package name>` -> the app's subscription settings.
    var appSettings = JournaledMap<StoreAppSettings>()
    /// Consumption information received, oldest first.
    var appleConsumption = JournaledList<AppleConsumptionRecord>()
    /// Customer key (``AppleTransactionRecord/customerKey``) -> the app transaction of that customer.
    var appleAppTransactions = JournaledMap<AppleAppTransactionRecord>()
    /// ``AppleMassExtensionRecord/key`` -> a mass renewal-date extension and its outcome.
    var appleMassExtensions = JournaledMap<AppleMassExtensionRecord>()
    /// Stripe: every object by id (prices, customers, sessions, payments, subscriptions, ...).
    var stripeObjects = JournaledMap<StripeRecord>()
    /// Stripe: the events, oldest first (`GET /v1/events`).
    var stripeEvents = JournaledList<StripeEventRecord>()
    /// Stripe: `Idempotency-Key` -> the first answer.
    var stripeIdempotency = JournaledMap<StripeIdempotentReply>()

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func read<Value: Decodable>(_ key: CodingKeys, _ empty: Value) throws -> Value {
            try container.decodeIfPresent(Value.self, forKey: key) ?? empty
        }
        version = try read(.version, 1)
        logGeneration = try read(.logGeneration, 0)
        nextTransactionNumber = try container.decode(Int64.self, forKey: .nextTransactionNumber)
        nextWebOrderLineItemNumber = try container.decode(Int64.self, forKey: .nextWebOrderLineItemNumber)
        appleTransactions = try read(.appleTransactions, .init())
        appleKeys = try read(.appleKeys, .init())
        appleSharedSecrets = try read(.appleSharedSecrets, .init())
        googleAccounts = try read(.googleAccounts, .init())
        googleAccessTokens = try read(.googleAccessTokens, .init())
        googlePurchases = try read(.googlePurchases, .init())
        googleVoided = try read(.googleVoided, .init())
        appleSchedules = try read(.appleSchedules, .init())
        appSettings = try read(.appSettings, .init())
        appleConsumption = try read(.appleConsumption, .init())
        appleAppTransactions = try read(.appleAppTransactions, .init())
        appleMassExtensions = try read(.appleMassExtensions, .init())
        stripeObjects = try read(.stripeObjects, .init())
        stripeEvents = try read(.stripeEvents, .init())
        stripeIdempotency = try read(.stripeIdempotency, .init())
    }

    /// What changed since the last call, as one log line (`nil`: nothing), and forgets it. The counters are always
    /// carried: every change is absolute, so replaying a line twice gives the same state.
    mutating func takeChange() -> StateChange? {
        let change = StateChange(
            nextTransactionNumber: nextTransactionNumber, nextWebOrderLineItemNumber: nextWebOrderLineItemNumber,
            appleTransactions: appleTransactions.takeChange(), appleKeys: appleKeys.takeChange(),
            appleSharedSecrets: appleSharedSecrets.takeChange(), googleAccounts: googleAccounts.takeChange(),
            googleAccessTokens: googleAccessTokens.takeChange(), googlePurchases: googlePurchases.takeChange(),
            googleVoided: googleVoided.takeChange(), appleSchedules: appleSchedules.takeChange(),
            appSettings: appSettings.takeChange(), appleConsumption: appleConsumption.takeChange(),
            appleAppTransactions: appleAppTransactions.takeChange(),
            appleMassExtensions: appleMassExtensions.takeChange(), stripeObjects: stripeObjects.takeChange(),
            stripeEvents: stripeEvents.takeChange(), stripeIdempotency: stripeIdempotency.takeChange())
        return change.isEmpty ? nil : change
    }

    /// Applies one line of the log.
    mutating func apply(_ change: StateChange) throws(StateJournalError) {
        nextTransactionNumber = change.nextTransactionNumber
        nextWebOrderLineItemNumber = change.nextWebOrderLineItemNumber
        if let list = change.appleTransactions { try appleTransactions.apply(list) }
        if let list = change.appleKeys { try appleKeys.apply(list) }
        if let map = change.appleSharedSecrets { appleSharedSecrets.apply(map) }
        if let list = change.googleAccounts { try googleAccounts.apply(list) }
        if let list = change.googleAccessTokens { try googleAccessTokens.apply(list) }
        if let list = change.googlePurchases { try googlePurchases.apply(list) }
        if let list = change.googleVoided { try googleVoided.apply(list) }
        if let map = change.appleSchedules { appleSchedules.apply(map) }
        if let map = change.appSettings { appSettings.apply(map) }
        if let list = change.appleConsumption { try appleConsumption.apply(list) }
        if let map = change.appleAppTransactions { appleAppTransactions.apply(map) }
        if let map = change.appleMassExtensions { appleMassExtensions.apply(map) }
        if let map = change.stripeObjects { stripeObjects.apply(map) }
        if let list = change.stripeEvents { try stripeEvents.apply(list) }
        if let map = change.stripeIdempotency { stripeIdempotency.apply(map) }
        // Applying marks nothing to write: what was read back is on disk already.
        _ = takeChange()
    }
}

/// One line of the state log: what one operation of the store changed. Each part is absent when unchanged.
struct StateChange: Codable, Sendable, Equatable {
    var nextTransactionNumber: Int64
    var nextWebOrderLineItemNumber: Int64
    var appleTransactions: ListChange<AppleTransactionRecord>?
    var appleKeys: ListChange<AppleAPIKeyRecord>?
    var appleSharedSecrets: MapChange<String>?
    var googleAccounts: ListChange<GoogleServiceAccountRecord>?
    var googleAccessTokens: ListChange<GoogleAccessTokenRecord>?
    var googlePurchases: ListChange<GooglePurchaseRecord>?
    var googleVoided: ListChange<GoogleVoidedRecord>?
    var appleSchedules: MapChange<AppleRenewalSchedule>?
    var appSettings: MapChange<StoreAppSettings>?
    var appleConsumption: ListChange<AppleConsumptionRecord>?
    var appleAppTransactions: MapChange<AppleAppTransactionRecord>?
    var appleMassExtensions: MapChange<AppleMassExtensionRecord>?
    var stripeObjects: MapChange<StripeRecord>?
    var stripeEvents: ListChange<StripeEventRecord>?
    var stripeIdempotency: MapChange<StripeIdempotentReply>?

    /// Nothing but the counters, which change only together with a transaction.
    var isEmpty: Bool {
        appleTransactions == nil && appleKeys == nil && appleSharedSecrets == nil && googleAccounts == nil
            && googleAccessTokens == nil && googlePurchases == nil && googleVoided == nil && appleSchedules == nil
            && appSettings == nil && appleConsumption == nil && appleAppTransactions == nil
            && appleMassExtensions == nil
            && stripeObjects == nil && stripeEvents == nil && stripeIdempotency == nil
    }
}
