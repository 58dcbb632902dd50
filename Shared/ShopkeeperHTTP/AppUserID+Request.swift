import Hummingbird
import ShopkeeperModels

extension AppUserID {
    /// The customer a service's route names in `{app_user_id}`, spelled as the gateway forwards it
    /// (``AppUserID/segment(_:)``): a service never decodes a path's id any other way. `422` naming
    /// `app_user_id` for an id that breaks the rule; `400 invalid_url` for any other spelling.
    package static func fromPath(_ context: some RequestContext) throws(RequestError) -> String {
        guard let segment = context.parameters.get("app_user_id") else {
            throw .invalid("app_user_id", rule)
        }
        do {
            return try decode(canonicalSegment: segment[...])
        } catch .invalid {
            throw .invalid("app_user_id", rule)
        } catch {
            throw .invalidURL("The app user id in the path \(error.detail).")
        }
    }

    /// An id from a body or query in its canonical form; `422` naming `pointer` when it breaks the rule.
    package static func validated(_ id: String, pointer: String) throws(RequestError) -> String {
        do {
            return try canonical(id)
        } catch {
            throw .invalid(pointer, rule)
        }
    }

    /// ``validated(_:pointer:)`` for a handler that gathers every problem of a request before refusing it: the
    /// canonical id, or `nil` with the problem appended (also when `id` is missing).
    package static func validated(_ id: String?, pointer: String, problems: inout [FieldProblem]) -> String? {
        guard let id, let canonical = try? canonical(id) else {
            problems.append(FieldProblem(pointer: pointer, detail: "is required: \(rule)"))
            return nil
        }
        return canonical
    }
}
