import Foundation
import Hummingbird
import ShopkeeperModels

extension CustomerAnswer where Response: Encodable {
    /// The answer as JSON: `response`'s members with `customer` added as its text (left out when there is none), the
    /// same document as the full answer type encodes.
    package func encoded() throws -> Data {
        try EmbeddedJSON.encode(response, adding: ["customer": customerJSON])
    }
}

extension CustomerAnswer where Response: Decodable {
    /// Reads an answer: `Response` decodes the members but `customer`, which is kept as its text and never given to
    /// the decoder (it would read all of it: the customer is most of the answer, and grows with every purchase).
    package init(decoding data: Data) throws {
        let (customer, rest) = try EmbeddedJSON.split("customer", in: data)
        self.init(try JSONBody.decode(Response.self, from: rest), customerJSON: customer)
    }
}

extension JSONBody {
    /// A response with `answer` as its body (``CustomerAnswer/encoded()``).
    package static func response<Answer: Encodable>(
        _ answer: CustomerAnswer<Answer>, status: HTTPResponse.Status = .ok
    ) throws -> Response {
        response(json: try answer.encoded(), status: status)
    }
}

extension AppTransactionApplyResponse {
    /// The customer as JSON text, as every answer encodes it.
    package func customerJSON() throws -> String {
        String(decoding: try JSONBody.encode(customer), as: UTF8.self)
    }
}
