import Foundation

/// `expand[]`: ids in an answer replaced by the objects they name, as Stripe does (`latest_invoice`,
/// `latest_charge`, `data.product`, ...; one level, and `data.` for the items of a list), and an invoice's
/// `payments` (its invoice payments, a list).
extension SandboxStore {
    func stripeExpand(_ value: StripeValue, _ paths: [String]) -> StripeValue {
        var value = value
        for path in paths {
            let parts = path.split(separator: ".").map(String.init)
            if parts.count == 2, parts[0] == "data", case .array(let items)? = value["data"] {
                value["data"] = .array(items.map { stripeExpandField($0, parts[1]) })
            } else if parts.count == 1 {
                value = stripeExpandField(value, parts[0])
            }
        }
        return value
    }

    private func stripeExpandField(_ value: StripeValue, _ field: String) -> StripeValue {
        var value = value
        if field == "payments", value["object"] == "invoice", let id = value["id"]?.stringValue {
            value[field] = .list(
                stripeInvoicePayments(invoice: id, paymentIntent: nil), url: "/v1/invoice_payments?invoice=\(id)")
            return value
        }
        guard let id = value[field]?.stringValue else { return value }
        if field == "product", let price = stripeAll(StripePriceRecord.self).first(where: { $0.product == id }) {
            value[field] = price.productJSON
        } else if let record = state.stripeObjects[id] {
            value[field] = record.json
        }
        return value
    }
}
