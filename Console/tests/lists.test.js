// The list pages' queries and filters (js/pure/lists.js) and paths with queries (js/pure/query.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  appleOrderPath,
  attemptQuery,
  deliveryFilters,
  endpointFilterText,
  eventsCountText,
  lastAttemptText,
  matchesDelivery,
  matchName,
  readDeliveryFilter,
} from "../js/pure/lists.js";
import { hasMore, withQuery } from "../js/pure/query.js";

const query = (text) => new URLSearchParams(text);

describe("withQuery", () => {
  it("adds the values set, encoded, and leaves out empty ones", () => {
    assert.equal(withQuery("/v1/x", { a: 1, b: "", c: null, d: undefined, e: false, f: "a b&c" }), "/v1/x?a=1&e=false&f=a+b%26c");
    assert.equal(withQuery("/v1/x", {}), "/v1/x");
    assert.equal(withQuery("/v1/x"), "/v1/x");
    assert.equal(withQuery("/v1/x", { limit: 0 }), "/v1/x?limit=0");
  });
  it("pages on while next_before is set, 0 included", () => {
    assert.equal(hasMore("abc"), true);
    assert.equal(hasMore(0), true);
    assert.equal(hasMore(null), false);
    assert.equal(hasMore(undefined), false);
  });
});

describe("the webhooks page's filter", () => {
  const dead = { delivery: { state: "dead" } };
  const pending = { delivery: { state: "pending" } };
  const none = { delivery: null };
  it("reads a known filter from the query, all otherwise", () => {
    assert.equal(readDeliveryFilter(query("delivery=dead")), "dead");
    assert.equal(readDeliveryFilter(query("delivery=lost")), "all");
    assert.equal(readDeliveryFilter(query("")), "all");
    assert.equal(deliveryFilters[0][0], "all");
  });
  it("keeps the events whose delivery is in the state, or without one", () => {
    const events = [dead, pending, none];
    assert.deepEqual(events.filter((event) => matchesDelivery("all", event)), events);
    assert.deepEqual(events.filter((event) => matchesDelivery("dead", event)), [dead]);
    assert.deepEqual(events.filter((event) => matchesDelivery("none", event)), [none]);
    assert.deepEqual(events.filter((event) => matchesDelivery("delivered", event)), []);
  });
  it("counts the events shown, among how many, and whether older ones were left out", () => {
    assert.equal(eventsCountText(3, "all", 3, false), "3 event(s).");
    assert.equal(eventsCountText(2, "dead", 2000, true), "2 event(s) among the latest 2000; older events are not shown.");
  });
});

describe("the refused proofs' query", () => {
  it("asks for refusals by default", () => {
    assert.deepEqual(attemptQuery(query("")), { limit: 50, app_user_id: undefined, outcome: "invalid" });
  });
  it("asks for every outcome with all, and for one customer, trimmed", () => {
    assert.deepEqual(attemptQuery(query("outcome=all&app_user_id=%20alice%20")), { limit: 50, app_user_id: "alice", outcome: undefined });
    assert.deepEqual(attemptQuery(query("outcome=verified&app_user_id=%20")), { limit: 50, app_user_id: undefined, outcome: "verified" });
  });
});

describe("the customer search", () => {
  it("names what a search matched", () => {
    assert.equal(matchName("google_order_id"), "Google Play order id");
    assert.equal(matchName("alias_prefix"), "alias prefix");
  });
  it("asks Apple at the path the search gave, or at one built from the id", () => {
    assert.equal(appleOrderPath("/v1/admin/stores/apple/orders/MX1", "MX1"), "/v1/admin/stores/apple/orders/MX1");
    assert.equal(appleOrderPath(true, "M/X 1"), "/v1/admin/stores/apple/orders/M%2FX%201");
    assert.equal(appleOrderPath("https://elsewhere.example/orders", "MX1"), "/v1/admin/stores/apple/orders/MX1");
  });
});

describe("the webhook endpoints", () => {
  it("say what their filters let through, every type or environment when there is no filter", () => {
    assert.equal(endpointFilterText({ event_types: null, environments: null }), "every event type; every environment");
    assert.equal(
      endpointFilterText({ event_types: ["refund", "revocation"], environments: ["production"] }),
      "refund, revocation; production",
    );
  });
  it("say how their last attempt went", () => {
    assert.equal(lastAttemptText({ last_attempt_at: null }), "No attempt yet.");
    assert.equal(lastAttemptText({ last_attempt_at: "2026-03-01T10:00:00Z", last_status: 200, last_error: null }), "2026-03-01T10:00:00Z: HTTP 200");
    assert.equal(lastAttemptText({ last_attempt_at: "2026-03-01T10:00:00Z", last_status: null, last_error: "timeout" }), "2026-03-01T10:00:00Z: timeout");
  });
});
