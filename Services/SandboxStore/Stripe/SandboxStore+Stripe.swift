import Foundation

/// Who asked for a change through Stripe's API: the event's `request` (`id`, `idempotency_key`).
struct StripeRequestInfo: Sendable, Equatable {
    var id: String
    var idempotencyKey: String?
}

/// The answer to one Stripe API call: status and body (an object or `{"error": ...}`), whether it was replayed for
/// an `Idempotency-Key`, and the events it made (to be sent as webhooks).
struct StripeAnswer: Sendable {
    var status: Int
    var body: StripeValue
    var replayed: Bool
    var events: [StripeEventRecord]
}

/// Stripe's objects in the sandbox: finding, saving, the events every change makes, idempotent requests.
extension SandboxStore {
    /// The object `id` of kind `T`, if there is one.
    func stripeGet<T: StripeStored>(_ type: T.Type, _ id: String) -> T? {
        state.stripeObjects[id].flatMap(T.init)
    }

    /// The object `id` of kind `T`, or Stripe's `resource_missing` naming `param`.
    func stripeFind<T: StripeStored>(_ type: T.Type, _ id: String, param: String = "id") throws(StripeError) -> T {
        guard let value = stripeGet(type, id) else { throw StripeError.missing(T.noun, id, param: param) }
        return value
    }

    /// Saves `value` (journaled by the next ``commit()``).
    func stripePut(_ value: some StripeStored) {
        state.stripeObjects[value.id] = value.record
    }

    /// All objects of kind `T`.
    func stripeAll<T: StripeStored>(_ type: T.Type) -> [T] {
        state.stripeObjects.compactMap { T($0.value) }
    }

    /// Records an event about `object` (as it is now) and queues it for the webhook.
    func stripeEmit(_ type: String, _ object: StripeValue, previous: StripeValue? = nil, at now: Date) {
        let event = StripeEventRecord(
            id: StripeIdentifiers.make("evt_"), type: type, created: now.stripeSeconds, object: object,
            previousAttributes: previous, requestId: stripeRequest?.id, idempotencyKey: stripeRequest?.idempotencyKey)
        stripeEventIndex[event.id] = state.stripeEvents.count
        state.stripeEvents.append(event)
        stripeNewEvents.append(event)
    }

    /// The event `id`.
    func stripeEvent(_ id: String) -> StripeEventRecord? {
        stripeEventIndex[id].map { state.stripeEvents[$0] }
    }

    /// Events newest first, optionally of the given types, after `startingAfter` (an event id), at most `limit`;
    /// and whether more follow.
    func stripeEvents(types: Set<String>, startingAfter: String?, limit: Int) -> ([StripeEventRecord], Bool) {
        var end = state.stripeEvents.count
        if let startingAfter, let index = stripeEventIndex[startingAfter] { end = index }
        var found: [StripeEventRecord] = []
        var index = end - 1
        while index >= 0 && found.count <= limit {
            let event = state.stripeEvents[index]
            if types.isEmpty || types.contains(event.type) { found.append(event) }
            index -= 1
        }
        return (Array(found.prefix(limit)), found.count > limit)
    }

    /// Runs `body` (one change of Stripe's objects, on this actor without suspending), saves what it changed as one
    /// line of the state log, and answers the events it made. A ``StripeError`` is answered too: a declined card
    /// changes state (the failed payment, its events) before it is refused.
    func stripeRun<T: Sendable>(
        request: StripeRequestInfo? = nil, _ body: @Sendable (isolated SandboxStore) throws(StripeError) -> T
    ) throws -> (Result<T, StripeError>, [StripeEventRecord]) {
        stripeRequest = request
        stripeNewEvents = []
        defer {
            stripeRequest = nil
            stripeNewEvents = []
        }
        let result: Result<T, StripeError>
        do throws(StripeError) {
            result = .success(try body(self))
        } catch {
            result = .failure(error)
        }
        try commit()
        return (result, stripeNewEvents)
    }

    /// One call of Stripe's API. With an `Idempotency-Key`, the first answer is kept and replayed to every retry
    /// with the same parameters; a retry with other parameters is refused (`idempotency_error`). As at Stripe, a
    /// request refused before it ran (a missing or unknown parameter, 400) keeps no answer, and a declined card (402)
    /// does.
    func stripeAPI(
        idempotencyKey: String?, fingerprint: String, requestId: String,
        _ body: @Sendable (isolated SandboxStore) throws(StripeError) -> StripeValue
    ) throws -> StripeAnswer {
        if let key = idempotencyKey, let kept = state.stripeIdempotency[key] {
            guard kept.fingerprint == fingerprint else {
                return StripeAnswer(status: 400, body: StripeError.idempotency(key).json, replayed: false, events: [])
            }
            return StripeAnswer(status: kept.status, body: kept.body, replayed: true, events: [])
        }
        let (result, events) = try stripeRun(
            request: StripeRequestInfo(id: requestId, idempotencyKey: idempotencyKey), body)
        let answer: StripeAnswer
        switch result {
        case .success(let value): answer = StripeAnswer(status: 200, body: value, replayed: false, events: events)
        case .failure(let error):
            answer = StripeAnswer(status: error.status, body: error.json, replayed: false, events: events)
        }
        if let key = idempotencyKey, answer.status == 200 || answer.status == 402 {
            state.stripeIdempotency[key] = StripeIdempotentReply(
                fingerprint: fingerprint, status: answer.status, body: answer.body, created: Date().stripeSeconds)
            try commit()
        }
        return answer
    }

    // MARK: catalog

    /// Sets the prices the sandbox sells: those given are saved (active), every other price is deactivated (kept:
    /// subscriptions and sessions name them).
    func stripeSetPrices(_ prices: [StripePriceRecord]) throws -> [StripePriceRecord] {
        let given = Set(prices.map(\.id))
        for var old in stripeAll(StripePriceRecord.self) where !given.contains(old.id) && old.active {
            old.active = false
            stripePut(old)
        }
        for price in prices {
            var saved = price
            if let old = stripeGet(StripePriceRecord.self, price.id) { saved.created = old.created }
            stripePut(saved)
        }
        try commit()
        return stripePrices(lookupKeys: [], active: nil)
    }

    /// Prices, optionally with one of `lookupKeys` and of the given `active` state, by id.
    func stripePrices(lookupKeys: [String], active: Bool?) -> [StripePriceRecord] {
        stripeAll(StripePriceRecord.self).filter { price in
            (lookupKeys.isEmpty || price.lookupKey.map(lookupKeys.contains) == true)
                && (active.map { $0 == price.active } ?? true)
        }.sorted { $0.id < $1.id }
    }

    /// The product `id` (the product of one of the prices).
    func stripeProduct(_ id: String) throws(StripeError) -> StripeValue {
        guard let price = stripeAll(StripePriceRecord.self).filter({ $0.product == id }).min(by: { $0.id < $1.id })
        else { throw StripeError.missing("product", id) }
        return price.productJSON
    }

    // MARK: customers

    /// `POST /v1/customers`.
    func stripeCreateCustomer(_ form: StripeForm, at now: Date) throws(StripeError) -> StripeCustomerRecord {
        try form.allow(["email", "name", "description", "metadata", "phone"])
        let customer = StripeCustomerRecord(
            id: StripeIdentifiers.make("cus_", length: 14), email: form["email"], name: form["name"],
            description: form["description"], metadata: form.map("metadata"), created: now.stripeSeconds)
        stripePut(customer)
        stripeEmit("customer.created", customer.json, at: now)
        return customer
    }
}

extension Date {
    /// UNIX seconds, as Stripe writes times.
    var stripeSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
}
