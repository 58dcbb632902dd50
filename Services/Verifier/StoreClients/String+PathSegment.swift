import Foundation

extension String {
    /// This text as one URL path segment or query value: everything but unreserved characters escaped.
    var pathSegmentEscaped: String {
        addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? self
    }

    private static let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
}
