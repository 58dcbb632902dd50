import Foundation
import ShopkeeperCore
import ShopkeeperStores

/// The sandbox store's state: App Store transactions and keys, Google Play purchases, service accounts and tokens.
///
/// Lives in memory behind this actor; every operation that changes it appends what changed to the state log
/// (``StateJournal``), so a restart keeps every purchase and a purchase costs the same with 10 or 10,000 before it. Store-specific operations are in the `SandboxStore+Apple` and `SandboxStore+Google` extensions.
actor SandboxStore {
    var state: SandboxSnapshot
    /// Transaction id -> index in `state.appleTransactions`.
    var appleIndex: [String: Int] = [:]
    /// Purchase token -> index in `state.googlePurchases`.
    var googleIndex: [String: Int] = [:]
    /// Original transaction id -> index of the subscription's latest transaction in `state.appleTransactions`.
    var chainLatest: [String: Int] = [:]
    /// Customer key (``AppleTransactionRecord/customerKey``) -> indexes of the customer's transactions in
    /// `state.appleTransactions`, in the order they were made.
    var customerIndex: [String: [Int]] = [:]
    /// `appTransactionId` -> the customer key it is derived from, for the customers in `customerIndex`.
    var appTransactionIndex: [String: String] = [:]
    /// Stripe event id -> index in `state.stripeEvents`.
    var stripeEventIndex: [String: Int] = [:]
    /// The Stripe API request being served (the `request` of the events it makes).
    var stripeRequest: StripeRequestInfo?
    /// The Stripe events made by the change being run (``stripeRun(request:_:)``).
    var stripeNewEvents: [StripeEventRecord] = []
    private let journal: StateJournal<SandboxSnapshot>
    /// How many times faster than real time subscription periods pass (`SHOPKEEPER_SANDBOX_TIME_SCALE`).
    let timeScale: Double

    /// Loads the saved state of `directory`, or starts empty. `fsyncEachChange`: see ``StateJournal``.
    init(directory: StateDirectory, timeScale: Double = 1, fsyncEachChange: Bool = false) throws {
        let journal = StateJournal(directory: directory, fsyncEachChange: fsyncEachChange)
        self.journal = journal
        self.timeScale = timeScale
        let state = try journal.load()
        self.state = state
        for (index, record) in state.appleTransactions.enumerated() {
            appleIndex[record.transactionId] = index
            Self.noteCustomer(record, at: index, in: &customerIndex, &appTransactionIndex)
            Self.noteLatest(index, of: state.appleTransactions, in: &chainLatest)
        }
        for (index, record) in state.googlePurchases.enumerated() { googleIndex[record.purchaseToken] = index }
        for (index, event) in state.stripeEvents.enumerated() { stripeEventIndex[event.id] = index }
    }

    /// Indexes the transaction at `index` under its customer.
    func noteCustomer(_ record: AppleTransactionRecord, at index: Int) {
        Self.noteCustomer(record, at: index, in: &customerIndex, &appTransactionIndex)
    }

    private static func noteCustomer(
        _ record: AppleTransactionRecord, at index: Int, in customers: inout [String: [Int]],
        _ appTransactions: inout [String: String]
    ) {
        let key = record.customerKey
        if customers[key] == nil { appTransactions[record.appTransactionId] = key }
        customers[key, default: []].append(index)
    }

    /// Makes the transaction at `index` its subscription's latest when it is (by purchase date, then creation).
    func noteLatest(_ index: Int) {
        Self.noteLatest(index, of: state.appleTransactions, in: &chainLatest)
    }

    private static func noteLatest(
        _ index: Int, of transactions: JournaledList<AppleTransactionRecord>, in chainLatest: inout [String: Int]
    ) {
        let record = transactions[index]
        guard record.type == .autoRenewable else { return }
        if let known = chainLatest[record.originalTransactionId], transactions[known].purchaseDate > record.purchaseDate
        {
            return
        }
        chainLatest[record.originalTransactionId] = index
    }

    /// Appends what changed to the state log; called after every change.
    func commit() throws {
        try journal.record(&state)
    }
}

/// Random identifiers in the stores' own shapes.
enum StoreIdentifiers {
    private static let upperAlphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    private static let lowercase = Array("abcdefghijklmnopqrstuvwxyz")

    /// An App Store order id such as `MK5TTTVWJH`.
    static func appleOrderID() -> String {
        String((0..<10).map { _ in upperAlphanumerics.randomElement() ?? "A" })
    }

    /// An App Store Connect key id such as `2X9R4HXF34`.
    static func appleKeyID() -> String {
        appleOrderID()
    }

    /// A Google Play order id such as `GPA.3312-4567-8901-23456`.
    static func googleOrderID() -> String {
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9))) })
        }
        return "GPA.\(digits(4))-\(digits(4))-\(digits(4))-\(digits(5))"
    }

    /// An opaque Google Play purchase token.
    static func googlePurchaseToken() -> String {
        let head = String((0..<24).map { _ in lowercase.randomElement() ?? "a" })
        return head + ".AO-J1O" + RandomToken.base62(length: 96)
    }

    /// An OAuth access token in Google's shape (`ya29.` ...).
    static func googleAccessToken() -> String {
        "ya29.c." + RandomToken.base62(length: 120)
    }

    /// A number of `count` decimal digits (no leading zero).
    static func digits(_ count: Int) -> String {
        String(Int.random(in: 1...9)) + String((1..<count).map { _ in Character(String(Int.random(in: 0...9))) })
    }
}
