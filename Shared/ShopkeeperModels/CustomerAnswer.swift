/// An answer that carries a customer's info (``ApplyResponse``, ``PurchaseResponse``, ``RestoreResponse``) as the
/// services pass it on: every member but the customer in `response` (whose `customer` is `nil`), and the customer as
/// the JSON text the entitlements service rendered. No service decodes that text and encodes it again on the way to
/// the app (ShopkeeperHTTP's `EmbeddedJSON` writes it into the answer as it is).
package struct CustomerAnswer<Response: Sendable>: Sendable {
    /// The answer without its customer.
    package var response: Response
    /// The customer's info as JSON text; `nil` when the answer has none.
    package var customerJSON: String?

    package init(_ response: Response, customerJSON: String?) {
        self.response = response
        self.customerJSON = customerJSON
    }
}

/// ``ApplyResponse`` without its customer: what the entitlements service's apply answer holds besides the customer,
/// as a ``CustomerAnswer`` carries it (the same JSON document).
package struct ApplyOutcomes: Codable, Sendable, Equatable {
    package var outcomes: [TransactionOutcome]

    package init(outcomes: [TransactionOutcome]) {
        self.outcomes = outcomes
    }
}
