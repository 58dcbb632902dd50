import Hummingbird
import ShopkeeperHTTP

/// The `{app_user_id}` of a customer path, checked.
enum CustomerID {
    /// Longest app user id accepted.
    static let maximumLength = 256

    /// The path's app user id; 400 when it is empty or too long.
    static func from(_ context: ServiceRequestContext) throws -> String {
        let id = try context.parameters.require("app_user_id")
        try validate(id, pointer: "app_user_id")
        return id
    }

    /// Checks an app user id from a path or a body.
    static func validate(_ id: String, pointer: String) throws {
        guard !id.isEmpty, id.count <= maximumLength, !id.contains(where: \.isNewline) else {
            throw RequestError.invalid(pointer, "must be 1 to \(maximumLength) characters on one line")
        }
    }
}
