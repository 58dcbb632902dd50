import HTTPTypes
import NIOCore
import Testing

@testable import Gateway

/// The gateway's micro-cache: fresh for the service's TTL, then served to all but one request (which refreshes it)
/// for as long again, never past one second, and per app.
@Suite struct ResponseMicroCacheTests {
    static func entry(_ text: String) -> ResponseMicroCache.Entry {
        ResponseMicroCache.Entry(
            status: .ok, headers: [.eTag: "\"\(text)\"", .contentType: "application/json", .contentLength: "2"],
            body: ByteBuffer(string: text))
    }

    @Test func anExpiredEntrySendsOneRequestToTheServiceAndServesTheRestUntilTooOld() {
        let cache = ResponseMicroCache()
        let start = ContinuousClock.now
        cache.store(appID: "a", uri: "/v1/catalog", entry: Self.entry("v1"), ttl: .milliseconds(250), now: start)
        // Fresh: everyone gets it.
        #expect(cache.lookup(appID: "a", uri: "/v1/catalog", now: start + .milliseconds(100)) != nil)
        // Expired: the first caller fetches, the others are served the old copy meanwhile.
        let late = start + .milliseconds(300)
        #expect(cache.lookup(appID: "a", uri: "/v1/catalog", now: late) == nil)
        #expect(String(buffer: cache.lookup(appID: "a", uri: "/v1/catalog", now: late)?.body ?? ByteBuffer()) == "v1")
        #expect(cache.lookup(appID: "a", uri: "/v1/catalog", now: late + .milliseconds(50)) != nil)
        // The refresh arrives: fresh again, with the new body.
        cache.store(appID: "a", uri: "/v1/catalog", entry: Self.entry("v2"), ttl: .milliseconds(250), now: late)
        let refreshed = cache.lookup(appID: "a", uri: "/v1/catalog", now: late + .milliseconds(10))
        #expect(String(buffer: refreshed?.body ?? ByteBuffer()) == "v2")
        // Past twice the TTL nothing is served, even while a refresh is pending.
        #expect(cache.lookup(appID: "a", uri: "/v1/catalog", now: late + .milliseconds(501)) == nil)
        #expect(cache.lookup(appID: "a", uri: "/v1/catalog", now: late + .milliseconds(502)) == nil)
    }

    @Test func aRefreshThatNeverComesBackLetsTheNextCallerTryUntilTheEntryIsTooOld() {
        let cache = ResponseMicroCache()
        let start = ContinuousClock.now
        cache.store(appID: "a", uri: "/x", entry: Self.entry("v1"), ttl: .milliseconds(400), now: start)
        #expect(cache.lookup(appID: "a", uri: "/x", now: start + .milliseconds(450)) == nil)
        #expect(cache.lookup(appID: "a", uri: "/x", now: start + .milliseconds(700)) != nil)
        // Nothing is ever served more than a second after it was stored, whatever the service's TTL.
        #expect(cache.lookup(appID: "a", uri: "/x", now: start + .milliseconds(801)) == nil)
        cache.store(appID: "a", uri: "/y", entry: Self.entry("v1"), ttl: .seconds(30), now: start)
        #expect(cache.lookup(appID: "a", uri: "/y", now: start + .milliseconds(999)) != nil)
        #expect(cache.lookup(appID: "a", uri: "/y", now: start + .milliseconds(1001)) == nil)
    }

    @Test func entriesArePerAppAndAWriteDropsTheAppsEntries() {
        let cache = ResponseMicroCache()
        cache.store(appID: "a", uri: "/v1/catalog", entry: Self.entry("a"), ttl: .milliseconds(250))
        cache.store(appID: "b", uri: "/v1/catalog", entry: Self.entry("b"), ttl: .milliseconds(250))
        #expect(String(buffer: cache.lookup(appID: "b", uri: "/v1/catalog")?.body ?? ByteBuffer()) == "b")
        cache.invalidate(appID: "a")
        #expect(cache.lookup(appID: "a", uri: "/v1/catalog") == nil)
        #expect(cache.lookup(appID: "b", uri: "/v1/catalog") != nil)
    }

    @Test func aMatchingIfNoneMatchIsA304WithoutBodyHeaders() {
        let entry = Self.entry("v1")
        #expect(entry.isNotModified(ifNoneMatch: "\"v1\""))
        #expect(entry.isNotModified(ifNoneMatch: "\"x\", W/\"v1\""))
        #expect(!entry.isNotModified(ifNoneMatch: "\"v2\""))
        #expect(!entry.isNotModified(ifNoneMatch: nil))
        let answer = ProxyHeaders.answer(entry, ifNoneMatch: "\"v1\"")
        #expect(answer.status == .notModified)
        #expect(answer.body == nil)
        #expect(answer.fields[.eTag] == "\"v1\"")
        #expect(answer.fields[.contentLength] == nil && answer.fields[.contentType] == nil)
        let full = ProxyHeaders.answer(entry, ifNoneMatch: nil)
        #expect(full.status == .ok && full.fields[.contentLength] == "2")
    }

    @Test func aCustomerNeutralKeyLeavesOutOnePlainlySpelledCustomer() {
        let key = ResponseMicroCache.customerNeutralKey
        #expect(
            key("/v1/offerings?platform=app_store&app_user_id=ann&locale=de")
                == " /v1/offerings?platform=app_store&app_user_id&locale=de")
        #expect(
            key("/v1/offerings?app_user_id=bob@example.com:7&platform=app_store")
                == " /v1/offerings?app_user_id&platform=app_store")
        // A parameter that only begins like it is another parameter, kept as it is.
        #expect(key("/v1/offerings?app_user_idx=1&app_user_id=ann") == " /v1/offerings?app_user_idx=1&app_user_id")
        // Anything the service must decide: no customer, two, an empty or too long one, a spelling to decode.
        let forwarded = [
            "/v1/offerings", "/v1/offerings?platform=app_store", "/v1/offerings?app_user_id",
            "/v1/offerings?app_user_id=", "/v1/offerings?app_user_id=ann&app_user_id=bob",
            "/v1/offerings?app_user_id=b%6Fb", "/v1/offerings?app_user_id=a+b",
            "/v1/offerings?app_user_id=ann&locale=de%2DDE", "/v1/offerings?app_user_id=a/b",
            "/v1/offerings?app_user_id=" + String(repeating: "a", count: 257),
        ]
        for uri in forwarded { #expect(key(uri) == nil, "\(uri)") }
        #expect(key("/v1/offerings?app_user_id=" + String(repeating: "a", count: 256)) != nil)
    }

    @Test func aCustomerNeutralEntryAnswersEveryCustomerAndComesFirst() {
        let cache = ResponseMicroCache()
        let ann = "/v1/offerings?app_user_id=ann&platform=app_store"
        let bob = "/v1/offerings?app_user_id=bob&platform=app_store"
        cache.store(appID: "a", uri: ann, entry: Self.entry("own"), ttl: .milliseconds(500))
        #expect(cache.lookup(appID: "a", uri: bob, neutralKey: ResponseMicroCache.customerNeutralKey(uri: bob)) == nil)
        let neutral = ResponseMicroCache.customerNeutralKey(uri: ann)
        cache.store(appID: "a", uri: neutral ?? ann, entry: Self.entry("all"), ttl: .milliseconds(500))
        for uri in [ann, bob] {
            let found = cache.lookup(
                appID: "a", uri: uri, neutralKey: ResponseMicroCache.customerNeutralKey(uri: uri))
            #expect(String(buffer: found?.body ?? ByteBuffer()) == "all")
        }
        // Without the neutral key (a spelling the service decides), only the URI's own entry.
        #expect(String(buffer: cache.lookup(appID: "a", uri: ann)?.body ?? ByteBuffer()) == "own")
        #expect(cache.lookup(appID: "b", uri: bob, neutralKey: neutral) == nil)
    }
}
