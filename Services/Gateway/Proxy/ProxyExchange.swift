import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// One request the gateway forwards, whichever path took it: answered from the micro-cache, or through a pooled
/// upstream connection (``UpstreamPool``), with the response buffered (small, with a length: it may be cached and
/// `If-None-Match` is answered here) or streamed (reads from the service paused while the client cannot take more),
/// or, for a download the content service hands off (``FileHandoff``), sent from the content volume with
/// `sendfile(2)`. A request body is read whole first when its length is known and small (the pipeline's `POST`s,
/// whose length ``ChannelProxy`` checked), or streamed to the service as it arrives (the router's uploads, chunked
/// ones included). Lives on its client's event loop; `Client` is where the answer goes (``ProxyClient``).
final class ProxyExchange<Client: ProxyClient>: UpstreamResponseReceiver {
    private let request: HTTPRequest
    private let plan: ProxyPlan
    private let forwarder: Forwarder
    private let client: Client
    private let started = ProxyMetrics.now()

    private enum State {
        /// A `POST`'s body arriving from the client, to be forwarded whole.
        case receivingBody
        /// The customer's stored info being read (``StoredCustomerReads``).
        case readingStored
        case waitingForConnection
        case waitingForHead(UpstreamConnection)
        /// A response of known, small length being collected.
        case buffering(UpstreamConnection, ProxyHeaders.Downstream, ByteBuffer)
        /// A response whose head has gone to the client.
        case streaming(UpstreamConnection, ProxyHeaders.Downstream)
        /// A hand-off's file being opened.
        case openingFile
        /// A hand-off's file going out.
        case sendingFile
        case done
    }

    private var state = State.waitingForConnection
    /// A `POST`'s body, as received so far.
    private var requestBody: ByteBuffer?
    /// Set until a streamed request body may go out: completed once the head is sent, failed if it never is.
    private var upload: EventLoopPromise<Void>?
    /// The future of ``upload`` (kept once it is completed: the lease may complete within ``start()``).
    private var uploadStarted: EventLoopFuture<Void>?
    /// Whether a streamed request body is still going out (its connection cannot carry another request then).
    private var uploading = false
    private var attempts = 0
    /// Whether the request offers the service to hand a download off (until the volume turns out unreadable).
    private var offersFileDelivery: Bool
    /// The bytes of a hand-off's file the client's connection has taken.
    private var fileBytesSent: Int64 = 0

    init(request: HTTPRequest, plan: ProxyPlan, forwarder: Forwarder, client: Client) {
        self.request = request
        self.plan = plan
        self.forwarder = forwarder
        self.client = client
        self.offersFileDelivery = plan.offersFileDelivery
    }

    func start() {
        // A write: what the micro-cache keeps of the app may be stale once it lands.
        if request.method != .get && request.method != .head, let identity = plan.identity {
            forwarder.cache.invalidate(appID: identity.appID)
        }
        switch plan.body {
        case .whole(let length):
            requestBody = ByteBufferAllocator().buffer(capacity: length)
            state = .receivingBody
            return
        case .streamed:
            let promise = client.eventLoop.makePromise(of: Void.self)
            upload = promise
            uploadStarted = promise.futureResult
            return lease()
        case .none:
            break
        }
        // Entries are per app, not per customer: a request in a customer's name never uses them.
        if request.method == .get, plan.usesMicroCache, plan.customer == nil, let identity = plan.identity,
            let entry = forwarder.cache.lookup(
                appID: identity.appID, uri: request.path ?? "/",
                neutralKey: ResponseMicroCache.customerNeutralKey(uri: request.path ?? "/"))
        {
            let (status, fields, body) = ProxyHeaders.answer(entry, ifNoneMatch: request.headerFields[.ifNoneMatch])
            return respond(status: status, fields: fields, body: body)
        }
        if let storedRead = plan.storedRead, let identity = plan.identity {
            return readStored(storedRead, appID: identity.appID)
        }
        lease()
    }

    /// Answers from the customer's stored info when it counts; otherwise (unknown id, nothing stored, no connection
    /// ready, a failed read) asks the entitlements service, which answers every case.
    private func readStored(_ read: ChannelProxy.StoredRead, appID: String) {
        guard
            let reading = read.connections.read(
                appID: appID, appUserID: read.appUserID, resolution: read.reads.resolution)
        else {
            read.reads.record(answered: false)
            return lease()
        }
        state = .readingStored
        reading.hop(to: client.eventLoop).assumeIsolated().whenComplete { [self] result in
            guard case .readingStored = state else { return }  // the client left meanwhile
            var json: String?
            switch result {
            case .success(let found?):
                json = found.json(appUserID: read.appUserID)
                if json != nil, found.lastSeenStale { read.reads.lastSeen.record(found.customerID) }
            case .success(nil):
                break
            case .failure(let error):
                log(error, reading: "the stored customer info")
            }
            read.reads.record(answered: json != nil)
            guard let json else { return lease() }
            answerStored(json)
        }
    }

    /// The entitlements service's answer to a customer info read, from the stored info: the same document, entity
    /// tag and headers (`If-None-Match` answered as for any buffered response). Not kept in the micro-cache: a read
    /// here costs about what a cached answer does, and it shows a change the store made (a refund) at once.
    private func answerStored(_ json: String) {
        let body = ByteBuffer(string: json)
        let fields: HTTPFields = [
            .eTag: CustomerInfoText.etag(of: json), .cacheControl: CustomerInfoText.cacheControl,
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes),
        ]
        let entry = ResponseMicroCache.Entry(status: .ok, headers: fields, body: body)
        let (status, answerFields, answer) = ProxyHeaders.answer(
            entry, ifNoneMatch: request.headerFields[.ifNoneMatch])
        respond(status: status, fields: answerFields, body: answer)
    }

    /// A part of a `POST`'s body.
    func requestBodyReceived(_ part: ByteBuffer) {
        guard case .receivingBody = state else { return }
        requestBody?.writeImmutableBuffer(part)
    }

    /// The `POST`'s body is whole (its length is the `Content-Length` the codec framed it by): forward it.
    func requestBodyEnded() {
        guard case .receivingBody = state else { return }
        lease()
    }

    /// Succeeds once a streamed body may go out (the head has gone to the service); fails if it never will (then the
    /// client has the exchange's answer, a failure).
    func uploadReady() -> EventLoopFuture<Void> {
        uploadStarted ?? client.eventLoop.makeFailedFuture(UpstreamConnectionClosed())
    }

    /// Sends a part of a streamed body; the future completes once the service's connection has taken it.
    func uploadReceived(_ part: ByteBuffer) -> EventLoopFuture<Void> {
        guard uploading, let connection = connectionInUse else {
            return client.eventLoop.makeFailedFuture(UpstreamConnectionClosed())
        }
        return connection.channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(part)))
    }

    /// A streamed body is complete.
    func uploadEnded() -> EventLoopFuture<Void> {
        guard uploading, let connection = connectionInUse else {
            return client.eventLoop.makeFailedFuture(UpstreamConnectionClosed())
        }
        uploading = false
        return connection.channel.writeAndFlush(HTTPClientRequestPart.end(nil))
    }

    /// Reading the client's streamed body failed (it is too large, or the client left): the exchange is abandoned, and
    /// its connection, holding half a request, closed. The router answers `error`.
    func uploadFailed(_ error: any Error) {
        if let connection = connectionInUse { plan.pool.release(connection, reusable: false) }
        uploading = false
        upload?.fail(error)
        upload = nil
        guard !isDone else { return }
        state = .done
        client.exchangeEnded()
    }

    /// The connection the exchange is using, if any.
    private var connectionInUse: UpstreamConnection? {
        switch state {
        case .waitingForHead(let connection), .buffering(let connection, _, _), .streaming(let connection, _):
            connection
        case .receivingBody, .readingStored, .waitingForConnection, .openingFile, .sendingFile, .done:
            nil
        }
    }

    private var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    private func lease() {
        attempts += 1
        // The usual case, an idle keep-alive connection: no closure to make.
        if let connection = plan.pool.leaseIdle() { return send(on: connection) }
        state = .waitingForConnection
        plan.pool.lease { [self] result in
            guard case .waitingForConnection = state else {
                // The client left meanwhile.
                if case .success(let connection) = result { plan.pool.release(connection, reusable: true) }
                return
            }
            switch result {
            case .success(let connection): send(on: connection)
            case .failure(let error): fail(error)
            }
        }
    }

    private func send(on connection: UpstreamConnection) {
        state = .waitingForHead(connection)
        connection.router.receiver = self
        var head = ProxyHeaders.upstreamRequest(
            request, identity: plan.identity, customer: plan.customer, requestID: plan.requestID, route: plan.route,
            contentLength: plan.body.length, hasBody: plan.body.isPresent, signature: forwarder.signature,
            offersFileDelivery: offersFileDelivery)
        for (name, value) in plan.traceHeaders { head.headers.replaceOrAdd(name: name, value: value) }
        if case .streamed = plan.body {
            uploading = true
            connection.channel.writeAndFlush(HTTPClientRequestPart.head(head), promise: nil)
            upload?.succeed()
            upload = nil
            return
        }
        connection.channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let requestBody, requestBody.readableBytes > 0 {
            connection.channel.write(HTTPClientRequestPart.body(.byteBuffer(requestBody)), promise: nil)
        }
        connection.channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }

    func upstreamReceived(_ part: HTTPClientResponsePart) {
        switch (state, part) {
        case (.waitingForHead(let connection), .head(let head)):
            guard head.status.code >= 200 else { return }  // an interim 1xx answer
            let downstream = ProxyHeaders.downstream(head)
            if downstream.isBodiless(for: request.method) || downstream.hasHandoffHeaders
                || (downstream.contentLength ?? .max)
                    <= (plan.signing == nil ? forwarder.bufferLimit : AnswerSigning.bufferLimit)
            {
                state = .buffering(connection, downstream, ByteBuffer())
            } else {
                state = .streaming(connection, downstream)
                write(.head(response(downstream.status, downstream.fields)), flush: false)
            }
        case (.buffering(let connection, let downstream, var body), .body(var part)):
            state = .done  // lets `body` be appended to without a copy
            // The first part is kept as it is (a small answer's only one): no buffer allocated, nothing copied.
            if body.readableBytes == 0 { body = part } else { body.writeBuffer(&part) }
            state = .buffering(connection, downstream, body)
        case (.buffering(let connection, let downstream, let body), .end):
            if downstream.hasHandoffHeaders && !(offersFileDelivery && downstream.handoff != nil) {
                return fail(UnexpectedFileHandoff())
            }
            // A service may answer before a streamed body is all sent: its connection then holds half a request.
            plan.pool.release(connection, reusable: downstream.keepAlive && !uploading)
            if let handoff = downstream.handoff { return sendFile(handoff, downstream) }
            answerBuffered(downstream, body: body)
        case (.streaming(let connection, _), .body(let part)):
            write(.body(part), flush: true)
            if !client.isWritable {
                connection.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            }
        case (.streaming(let connection, let downstream), .end):
            // The last parts may have left reading off (the client could not take them): a pooled connection that
            // is not read would keep its next request waiting until the read timeout.
            connection.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
            plan.pool.release(connection, reusable: downstream.keepAlive && !uploading)
            write(.end(nil), flush: true)
            finish(status: downstream.status)
        default:
            // A part out of order: the connection cannot be trusted.
            fail(UpstreamConnectionClosed())
        }
    }

    func upstreamFailed(_ error: any Error) {
        fail(error)
    }

    /// The client can take more: resume reading the streamed response.
    func clientWritable() {
        guard case .streaming(let connection, _) = state else { return }
        connection.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }

    /// The client closed its connection: give the upstream connection up (its response is not read to the end).
    func clientGone() {
        switch state {
        case .waitingForHead(let connection), .buffering(let connection, _, _), .streaming(let connection, _):
            plan.pool.release(connection, reusable: false)
        case .receivingBody, .readingStored, .waitingForConnection, .openingFile, .sendingFile, .done:
            break
        }
        state = .done
        uploading = false
        upload?.fail(UpstreamConnectionClosed())
        upload = nil
    }

    /// Opens the hand-off's file (off the event loop), then sends it; when the volume cannot give it, asks the
    /// service again without offering a hand-off, so the download still works (streamed through the service).
    private func sendFile(_ handoff: FileHandoff, _ downstream: ProxyHeaders.Downstream) {
        guard let files = forwarder.files else { return fail(UnexpectedFileHandoff()) }
        state = .openingFile
        files.open(handoff, on: client.eventLoop).assumeIsolated().whenComplete { [self] result in
            let context = client.pipeline
            let codec = try? context?.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
            guard case .openingFile = state, case .success(let handle) = result, let context, let codec else {
                if case .success(let handle) = result { try? handle.close() }
                report(handoff, completed: false, to: files)
                guard case .openingFile = state else { return }  // the client left meanwhile
                var logger = forwarder.logger
                logger[metadataKey: "request_id"] = .string(plan.requestID)
                logger.warning(
                    "cannot send the download from SHOPKEEPER_CONTENT_DIR; the content service streams it instead",
                    metadata: ["path": "\(handoff.path)", "error": "\(result)"])
                offersFileDelivery = false
                attempts = 0
                return lease()
            }
            transmit(handle, handoff, downstream, files: files, into: context, through: codec)
        }
    }

    /// Writes the head, the file's parts (as file regions, which the HTTP encoder passes on to `sendfile(2)`) and
    /// the end; once the end is written (or the connection failed) the file is closed and the outcome reported.
    private func transmit(
        _ handle: NIOFileHandle, _ handoff: FileHandoff, _ downstream: ProxyHeaders.Downstream, files: FileDelivery,
        into context: ChannelHandlerContext, through codec: ChannelHandlerContext
    ) {
        state = .sendingFile
        var fields = downstream.fields
        fields[.contentLength] = String(handoff.length)
        write(.head(response(downstream.status, fields)), flush: false)
        for part in FileDelivery.parts(of: handoff.range, handle: handle) {
            let written = client.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenSuccess { [self] in fileBytesSent += Int64(part.readableBytes) }
            // Below the HTTP-types codec, whose body parts are byte buffers only.
            codec.write(NIOAny(HTTPServerResponsePart.body(.fileRegion(part))), promise: written)
        }
        let ended = client.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: ended)
        ended.futureResult.assumeIsolated().whenComplete { [self] result in
            try? handle.close()
            let succeeded = (try? result.get()) != nil
            report(handoff, completed: succeeded, to: files)
            guard case .sendingFile = state else { return }
            guard succeeded else {
                state = .done
                context.close(promise: nil)
                return client.exchangeEnded()
            }
            finish(status: downstream.status)
        }
    }

    private func report(_ handoff: FileHandoff, completed: Bool, to files: FileDelivery) {
        files.reporter.report(
            DownloadFinishReport(bytesSent: fileBytesSent, completed: completed && fileBytesSent == handoff.length),
            downloadID: handoff.downloadID, route: plan.route, requestID: plan.requestID)
    }

    private func answerBuffered(_ downstream: ProxyHeaders.Downstream, body: ByteBuffer) {
        guard !downstream.isBodiless(for: request.method) else { return forward(downstream, body: nil) }
        guard request.method == .get else { return forward(downstream, body: body) }
        // For a `GET` the gateway evaluates If-None-Match (``ProxyHeaders`` kept it from the service), and may keep the
        // response (never one in a customer's name: entries are per app).
        let ifNoneMatch = request.headerFields[.ifNoneMatch]
        let ttl = downstream.status == .ok && plan.usesMicroCache && plan.customer == nil ? downstream.cacheTTL : nil
        // Neither kept nor compared (the pure proxy's usual case): the service's answer as it is, without the entry's
        // bookkeeping (its entity tag and 304 headers worked out, two clock reads).
        guard ifNoneMatch != nil || (ttl ?? .zero) > .zero else { return forward(downstream, body: body) }
        let entry = ResponseMicroCache.Entry(status: downstream.status, headers: downstream.fields, body: body)
        if let ttl, ttl > .zero, let identity = plan.identity {
            let uri = request.path ?? "/"
            // A customer-neutral answer is kept once for every customer asking the same query.
            let key = downstream.isCustomerNeutral ? ResponseMicroCache.customerNeutralKey(uri: uri) ?? uri : uri
            forwarder.cache.store(appID: identity.appID, uri: key, entry: entry, ttl: ttl)
        }
        let (status, fields, answer) = ProxyHeaders.answer(entry, ifNoneMatch: ifNoneMatch)
        respond(status: status, fields: fields, body: answer)
    }

    private func fail(_ error: any Error) {
        switch state {
        case .done, .openingFile, .sendingFile:
            return
        case .streaming(let connection, _):
            // The head has gone out: all that can be said now is a broken connection.
            plan.pool.release(connection, reusable: false)
            log(error)
            state = .done
            client.abort(GatewayError.upstream(error, service: plan.route.service))
            client.exchangeEnded()
            return
        case .waitingForHead(let connection):
            plan.pool.release(connection, reusable: false)
            // A keep-alive connection the service had already closed: once more on another, as nothing was lost. Not
            // a request with a body, which the service may have taken before it closed.
            if connection.completedRequests > 0, attempts == 1, plan.retriesOnStaleConnection,
                error is UpstreamConnectionClosed || error is UpstreamConnectionFailed
            {
                return lease()
            }
        case .buffering(let connection, _, _):
            plan.pool.release(connection, reusable: false)
        case .receivingBody, .readingStored, .waitingForConnection:
            break
        }
        uploading = false
        upload?.fail(error)
        upload = nil
        log(error)
        let problem = GatewayError.upstream(error, service: plan.route.service)
        if client.takes(problem) {
            state = .done
            return client.exchangeEnded()
        }
        let (fields, body) = ProblemRenderer.parts(
            problem: problem.problem(requestID: plan.requestID), headers: problem.headers)
        respond(status: problem.status, fields: fields, body: body)
    }

    private func log(_ error: any Error, reading what: String? = nil) {
        var logger = forwarder.logger
        logger[metadataKey: "request_id"] = .string(plan.requestID)
        if let identity = plan.identity { logger[metadataKey: "app_id"] = .string(identity.appID) }
        if let what {
            logger.warning(
                "could not read \(what); the service answers instead",
                metadata: ["error": "\(String(reflecting: error))"])
        } else {
            logger.warning(
                "upstream call failed", metadata: ["service": "\(plan.route.service)", "error": "\(error)"])
        }
    }

    /// Sends the service's answer as it came, neither kept nor compared: unless it is to be signed, its head goes out
    /// as NIO's codec read it (``ProxyHeaders/Downstream/forwardedHead(requestID:)``), without a conversion to HTTP
    /// fields and back, when the client takes it so (the connection pipeline).
    private func forward(_ downstream: ProxyHeaders.Downstream, body: ByteBuffer?) {
        if plan.signing == nil, downstream.isForwardableAsRead,
            client.writeWhole(downstream.forwardedHead(requestID: plan.requestID), body: body)
        {
            state = .done
            return finish(status: downstream.status)
        }
        respond(status: downstream.status, fields: downstream.fields, body: body)
    }

    /// Sends a whole answer (signed when the app signs its answers: every answer of this path but a streamed one).
    private func respond(status: HTTPResponse.Status, fields: HTTPFields, body: ByteBuffer?) {
        state = .done
        var fields = fields
        plan.signing?.sign(&fields, status: status, body: body)
        write(.head(response(status, fields)), flush: false)
        if let body, body.readableBytes > 0 { write(.body(body), flush: false) }
        write(.end(nil), flush: true)
        finish(status: status)
    }

    private func response(_ status: HTTPResponse.Status, _ fields: HTTPFields) -> HTTPResponse {
        var fields = fields
        fields[.requestID] = plan.requestID
        return HTTPResponse(status: status, headerFields: fields)
    }

    private func write(_ part: HTTPResponsePart, flush: Bool) {
        client.write(part, flush: flush)
    }

    private func finish(status: HTTPResponse.Status) {
        state = .done
        if let metricsRoute = plan.metricsRoute {
            forwarder.metrics.record(
                route: metricsRoute, method: request.method, status: status, nanoseconds: ProxyMetrics.now() - started)
        }
        client.exchangeEnded()
    }
}

/// The service answered with a file hand-off the request did not offer, or one whose headers make no sense.
struct UnexpectedFileHandoff: Error {}
