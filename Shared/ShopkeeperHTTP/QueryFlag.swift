import Hummingbird
import HummingbirdCore

/// Boolean query parameters, read strictly: only `true` and `false`.
///
/// A lenient reading is dangerous where the flag guards a write: `?dry_run=1` read as "not `true`" would apply a
/// catalog import meant as a preview. Anything else, or the parameter given twice, is `400 invalid_query`.
package enum QueryFlag {
    /// The flag's value, or `defaultValue` when the query does not name it.
    package static func value(
        _ name: String,
        in query: FlatDictionary<Substring, Substring>,
        default defaultValue: Bool = false
    ) throws(RequestError) -> Bool {
        let values = query.getAll(name)
        guard let first = values.first else { return defaultValue }
        guard values.count == 1, first == "true" || first == "false" else {
            throw .invalidQuery([FieldProblem(pointer: "?\(name)", detail: "must be true or false, given once")])
        }
        return first == "true"
    }
}
