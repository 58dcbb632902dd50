// The rules without a server: ids, retry delays, error mapping (src/ids.js, src/retry.js, src/errors.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ShopkeeperError, isRetryableStatus } from "../src/errors.js";
import { idsKey, isAnonymousID, loggedOut, makeAnonymousID, openIDs } from "../src/ids.js";
import { retryAfterSeconds, retryDelay, retryPolicy } from "../src/retry.js";
import { MemoryStorage } from "../src/storage.js";

describe("anonymous ids", () => {
  it("are anon_ and a lowercase UUID, as ShopkeeperKit makes them", () => {
    const id = makeAnonymousID();
    assert.match(id, /^anon_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(makeAnonymousID(() => "5F0C1D9E-0000-4000-8000-00000000ABCD"), "anon_5f0c1d9e-0000-4000-8000-00000000abcd");
    assert.notEqual(makeAnonymousID(), makeAnonymousID());
    assert.ok(isAnonymousID(id));
    assert.ok(!isAnonymousID("anon_5f0c1d9e"));
    assert.ok(!isAnonymousID("user_1"));
  });

  it("are kept in storage: the next page is the same customer", () => {
    const storage = new MemoryStorage();
    const first = openIDs(storage, undefined);
    assert.equal(first.appUserID, first.anonymousID);
    assert.deepEqual(first.knownUserIDs, [first.anonymousID]);
    assert.deepEqual(JSON.parse(storage.getItem(idsKey)), first);
    assert.deepEqual(openIDs(storage, undefined), first);
  });

  it("take a configured app user id as the current user, keeping the anonymous id", () => {
    const storage = new MemoryStorage();
    const first = openIDs(storage, undefined);
    const configured = openIDs(storage, "user_7");
    assert.equal(configured.appUserID, "user_7");
    assert.equal(configured.anonymousID, first.anonymousID);
    assert.deepEqual(configured.knownUserIDs, [first.anonymousID, "user_7"]);
    assert.deepEqual(openIDs(storage, undefined), configured);
  });

  it("are made anew when what is kept is not ids", () => {
    const storage = new MemoryStorage();
    storage.setItem(idsKey, "{not json");
    const state = openIDs(storage, undefined, () => "anon_00000000-0000-4000-8000-000000000001");
    assert.equal(state.anonymousID, "anon_00000000-0000-4000-8000-000000000001");
    storage.setItem(idsKey, JSON.stringify({ anonymousID: "someone", appUserID: "someone", knownUserIDs: [] }));
    assert.ok(isAnonymousID(openIDs(storage, undefined).anonymousID));
  });

  it("refuse an empty app user id", () => {
    assert.throws(() => openIDs(new MemoryStorage(), ""), { name: "ShopkeeperError", kind: "invalid_argument" });
  });

  it("log out to a new anonymous id that is the current user", () => {
    const state = openIDs(new MemoryStorage(), "user_7");
    const after = loggedOut(state, "anon_00000000-0000-4000-8000-000000000002");
    assert.equal(after.appUserID, "anon_00000000-0000-4000-8000-000000000002");
    assert.equal(after.anonymousID, after.appUserID);
    assert.ok(after.knownUserIDs.includes("user_7"));
  });
});

describe("retry delays", () => {
  const policy = retryPolicy();

  it("default to four tries, 0.5 s doubling up to 8 s", () => {
    assert.deepEqual(policy, { maxAttempts: 4, baseDelay: 0.5, maxDelay: 8 });
    assert.deepEqual(retryPolicy({ maxAttempts: 0, baseDelay: -1 }), { maxAttempts: 1, baseDelay: 0, maxDelay: 8 });
  });

  it("back off exponentially with equal jitter, capped", () => {
    assert.equal(retryDelay(policy, 1, null, 0), 0.25);
    assert.equal(retryDelay(policy, 1, null, 1), 0.5);
    assert.equal(retryDelay(policy, 3, null, 0.5), 1.5);
    assert.equal(retryDelay(policy, 10, null, 1), 8);
    assert.equal(retryDelay(policy, 10, null, 0), 4);
  });

  it("wait Retry-After when given, cut to the longest wait", () => {
    assert.equal(retryDelay(policy, 1, 3, 0.9), 3);
    assert.equal(retryDelay(policy, 1, 120, 0.9), 8);
    assert.equal(retryDelay(policy, 1, 0, 0.9), 0);
  });

  it("read Retry-After as seconds, not as a date", () => {
    assert.equal(retryAfterSeconds("2"), 2);
    assert.equal(retryAfterSeconds(" 1.5 "), 1.5);
    assert.equal(retryAfterSeconds("Wed, 21 Oct 2026 07:28:00 GMT"), null);
    assert.equal(retryAfterSeconds("-1"), null);
    assert.equal(retryAfterSeconds(null), null);
  });
});

describe("errors", () => {
  it("retry 408, 429 and 5xx only", () => {
    assert.deepEqual(
      [400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504, 599].filter(isRetryableStatus),
      [408, 429, 500, 502, 503, 504, 599],
    );
  });

  it("carry the problem document's stable code", () => {
    const body = JSON.stringify({
      type: "https://shopkeeper.dev/problems/rate-limited",
      title: "Too Many Requests",
      status: 429,
      detail: "Slow down.",
      code: "rate_limited",
      request_id: "req-1",
    });
    const error = ShopkeeperError.fromAnswer(429, body, 2);
    assert.equal(error.kind, "server");
    assert.equal(error.code, "rate_limited");
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 2);
    assert.equal(error.problem?.request_id, "req-1");
    assert.ok(error.isRetryable);
    assert.ok(error instanceof Error);
  });

  it("make a problem from a status when the body is not one", () => {
    const error = ShopkeeperError.fromAnswer(502, "<html>Bad gateway</html>", null);
    assert.equal(error.code, "http_502");
    assert.equal(error.problem?.detail, "<html>Bad gateway</html>");
    assert.ok(error.isRetryable);
    assert.equal(ShopkeeperError.fromAnswer(404, "", null).isRetryable, false);
  });

  it("have no code when no server answered", () => {
    const error = new ShopkeeperError("transport", "connection refused");
    assert.equal(error.code, null);
    assert.equal(error.status, null);
    assert.ok(error.isRetryable);
    assert.equal(new ShopkeeperError("untrusted_answer", "x").isRetryable, false);
  });
});
