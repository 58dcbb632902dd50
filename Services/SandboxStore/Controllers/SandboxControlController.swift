import Hummingbird
import NIOCore
import ShopkeeperHTTP
import ShopkeeperStores

/// `/sandbox`: the root certificate to trust, injected faults and call counters.
struct SandboxControlController {
    let rootPEM: String
    let traffic: StoreTraffic
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("root.pem") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/x-pem-file", .contentLength: String(rootPEM.utf8.count)],
                body: .init(byteBuffer: ByteBuffer(string: rootPEM)))
        }
        routes.post("faults") { request, _ in try await self.addFault(request) }
        routes.get("faults") { _, _ in
            try JSONBody.response(FaultList(faults: await traffic.pendingFaults().map(FaultBody.init)))
        }
        routes.delete("faults") { _, _ in
            await traffic.clearFaults()
            return Response(status: .noContent)
        }
        routes.get("calls") { _, _ in
            try JSONBody.response(
                CallCounts(
                    calls: await traffic.callCounts(),
                    googleAccessTokensPresented: await traffic.presentedAccessTokenCount()))
        }
        routes.delete("calls") { _, _ in
            await traffic.resetCounts()
            return Response(status: .noContent)
        }
        return routes
    }

    private func addFault(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(FaultBody.self, from: request, limit: maxBodyBytes)
        let fault = try body.fault()
        await traffic.add(fault)
        return try JSONBody.response(FaultBody(fault), status: .created)
    }
}

/// A fault as the controls read and show it (`POST /sandbox/faults`).
struct FaultBody: Codable, Sendable {
    /// An endpoint name (`apple.production.transactions`, `google.token`, ...) or `*` for any.
    var endpoint: String
    /// How many calls it affects.
    var count: Int
    /// Fail with this HTTP status: 429 or 5xx.
    var status: Int?
    /// `verifyReceipt` only: answer this Apple status (e.g. 21005).
    var appleStatus: Int?
    /// Delay each affected call this long first.
    var delayMs: Int?

    enum CodingKeys: String, CodingKey {
        case endpoint, count, status
        case appleStatus = "apple_status"
        case delayMs = "delay_ms"
    }

    init(_ fault: Fault) {
        endpoint = fault.endpoint?.rawValue ?? "*"
        count = fault.remaining
        status = fault.status
        appleStatus = fault.appleStatus
        delayMs = fault.delayMilliseconds
    }

    func fault() throws(RequestError) -> Fault {
        var problems: [FieldProblem] = []
        let named = StoreEndpoint(rawValue: endpoint)
        if endpoint != "*" && named == nil {
            problems.append(
                FieldProblem(
                    pointer: "/endpoint",
                    detail: "must be * or one of " + StoreEndpoint.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        if !(1...100_000).contains(count) {
            problems.append(FieldProblem(pointer: "/count", detail: "must be 1 to 100000"))
        }
        if let status, status != 429, !(500...599).contains(status) {
            problems.append(FieldProblem(pointer: "/status", detail: "must be 429 or 500 to 599"))
        }
        if let appleStatus {
            if let named, !named.isVerifyReceipt {
                problems.append(
                    FieldProblem(pointer: "/apple_status", detail: "applies to verifyReceipt endpoints only"))
            }
            if !(21000...21199).contains(appleStatus) {
                problems.append(
                    FieldProblem(pointer: "/apple_status", detail: "must be a verifyReceipt status 21000 to 21199"))
            }
        }
        if let delayMs, !(0...60_000).contains(delayMs) {
            problems.append(FieldProblem(pointer: "/delay_ms", detail: "must be 0 to 60000"))
        }
        if status == nil && appleStatus == nil && delayMs == nil {
            problems.append(FieldProblem(pointer: "/", detail: "give status, apple_status or delay_ms"))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return Fault(
            endpoint: named, remaining: count, status: status, appleStatus: appleStatus, delayMilliseconds: delayMs)
    }
}

/// `GET /sandbox/faults`.
struct FaultList: Codable, Sendable {
    var faults: [FaultBody]
}

/// `GET /sandbox/calls`: calls per endpoint name since start or the last `DELETE /sandbox/calls`.
struct CallCounts: Codable, Sendable {
    var calls: [String: Int]
    /// Different access tokens the Play Developer API accepted in that time.
    var googleAccessTokensPresented: Int

    enum CodingKeys: String, CodingKey {
        case calls
        case googleAccessTokensPresented = "google_access_tokens_presented"
    }
}
