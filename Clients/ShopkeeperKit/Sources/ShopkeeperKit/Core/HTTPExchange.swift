import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP answer: status, headers (lowercased names) and body.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Sends one request with URLSession and reads the whole answer.
struct HTTPExchange: Sendable {
    let session: URLSession

    func send(_ request: URLRequest) async throws(ShopkeeperError) -> HTTPAnswer {
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw ShopkeeperError.transport("not an HTTP answer")
            }
            var headers: [String: String] = [:]
            for (key, value) in http.allHeaderFields {
                if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
            }
            return HTTPAnswer(status: http.statusCode, headers: headers, body: data)
        } catch let error as ShopkeeperError {
            throw error
        } catch {
            throw .transport(String(describing: error))
        }
    }
}
