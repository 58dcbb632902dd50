/// What to do with a store transaction after sending its proof: finish it only once Shopkeeper has it (`200`) or
/// has said it will never take it; otherwise keep it and send it again later. Pure, so the table is tested alone.
public enum SubmissionVerdict: Hashable, Sendable {
    /// Granted (or already granted): finish the transaction.
    case delivered
    /// Shopkeeper will never take it (a forged or mismatched proof, another customer's purchase): finish it, so
    /// the store stops offering it, and report the code.
    case refused(code: String)
    /// Not judged, or judged on something that can change (an outage, credentials, a token): keep it.
    case keep

    /// Codes that keep the transaction although their status is a `4xx`: they are about the app's configuration
    /// or the request's credentials, or about a purchase that is not complete yet, not about the proof.
    static let retryableCodes: Set<String> = [
        "store_not_configured", "store_credentials_rejected", "shared_secret_mismatch", "purchase_pending",
        "validation_failed", "customer_token_required", "customer_token_invalid", "customer_token_expired",
        "customer_token_mismatch", "customer_token_unavailable", "secret_key_required", "missing_credentials",
        "invalid_api_key", "rate_limited",
    ]

    /// The verdict on an error answer (`status`, `code`).
    public static func forFailure(status: Int, code: String) -> SubmissionVerdict {
        if RetryPolicy.isRetryable(status: status) || retryableCodes.contains(code) { return .keep }
        switch status {
        case 422, 403: return .refused(code: code)
        case 409 where code == "transaction_belongs_to_another_app" || code == "already_owned_by_other_customer":
            return .refused(code: code)
        default: return .keep
        }
    }

    /// The verdict on a failed submission.
    public static func forError(_ error: ShopkeeperError) -> SubmissionVerdict {
        guard case .server(let problem, _) = error else { return .keep }
        return forFailure(status: problem.status, code: problem.code)
    }
}
