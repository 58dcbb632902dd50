// A customer's page in words and sums (js/pure/customer.js): reasons, the timeline's rows, devices, deliveries.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  deliverySummary,
  deltaText,
  eventSummary,
  explainedEntitlements,
  grantableEntitlements,
  grantExpiry,
  isRevocable,
  ltvLines,
  ltvQuery,
  packsText,
  periodKind,
  purchasesWithDevices,
  reasonText,
  stateTone,
  timelineRows,
  trialText,
  willRenewText,
} from "../js/pure/customer.js";

describe("reasonText", () => {
  it("says which subscription gives an entitlement, where, and for how long", () => {
    const reason = {
      source: "subscription",
      product_id: "garden_monthly",
      store: "app_store",
      original_transaction_id: "2000001",
      environment: "sandbox",
      state: "grace_period",
      since: "2026-03-01T10:00:00Z",
      until: "2026-04-01T10:00:00Z",
    };
    assert.equal(
      reasonText(reason),
      "Subscription to garden_monthly (App Store, original transaction 2000001, sandbox): grace period, since 2026-03-01 10:00 UTC, until 2026-04-01 10:00 UTC.",
    );
  });
  it("leaves production and missing facts out, and says when there is no end", () => {
    assert.equal(
      reasonText({ source: "purchase", environment: "production", state: "owned" }),
      "Purchase of an unknown product: owned, with no end.",
    );
  });
  it("words the trial, grants, products owned without purchase and unknown sources", () => {
    assert.equal(reasonText({ source: "trial", state: "active", until: "2026-03-08T00:00:00Z" }), "The app's free trial: active, until 2026-03-08 00:00 UTC.");
    assert.equal(reasonText({ source: "trial", product_id: "garden", state: "expired" }), "The app's free trial of garden: expired, with no end.");
    assert.equal(reasonText({ source: "promotional", grant_id: "g1", state: "active" }), "Promotional grant g1: active, with no end.");
    assert.equal(reasonText({ source: "grandfathered", product_id: "pro" }), "pro owned without a purchase (grandfathered), with no end.");
    assert.equal(reasonText({ source: "free" }), "A product owned without a purchase (free), with no end.");
    assert.equal(reasonText({ source: "family_sharing", state: "active" }), "family sharing: active, with no end.");
  });
});

describe("entitlements", () => {
  it("lists the given ones active first, then by id, and the never-had ones apart", () => {
    const reason = { source: "free" };
    const { given, never } = explainedEntitlements({
      entitlements: {
        zeta: { active: false, reasons: [reason] },
        beta: { active: true, reasons: [reason] },
        alpha: { active: false, reasons: [reason] },
        gamma: { active: false, reasons: [] },
      },
    });
    assert.deepEqual(
      given.map(([id]) => id),
      ["beta", "alpha", "zeta"],
    );
    assert.deepEqual(never, ["gamma"]);
    assert.deepEqual(explainedEntitlements({}), { given: [], never: [] });
  });
  it("offers every entitlement the products grant, once, sorted, and none without products", () => {
    const products = { products: [{ entitlements: ["seeds", "garden"] }, { entitlements: ["garden"] }, {}] };
    assert.deepEqual(grantableEntitlements(products), ["garden", "seeds"]);
    assert.deepEqual(grantableEntitlements({ unavailable: new Error("down") }), []);
  });
  it("colours states by what they mean for access", () => {
    assert.equal(stateTone("active"), "good");
    assert.equal(stateTone("billing_retry"), "warn");
    assert.equal(stateTone("refunded"), "bad");
    assert.equal(stateTone("something_new"), "neutral");
  });
});

describe("grants", () => {
  it("ends a grant whole days after now, in whole seconds", () => {
    const now = Date.parse("2026-03-01T10:20:30.456Z");
    assert.equal(grantExpiry("30", now), "2026-03-31T10:20:30Z");
    assert.equal(grantExpiry(1, Date.parse("2028-02-28T23:59:59.999Z")), "2028-02-29T23:59:59Z");
  });
  it("revokes only active and scheduled grants", () => {
    assert.equal(isRevocable({ state: "active" }), true);
    assert.equal(isRevocable({ state: "scheduled" }), true);
    assert.equal(isRevocable({ state: "expired" }), false);
    assert.equal(isRevocable({ state: "revoked" }), false);
  });
  it("words the trial", () => {
    assert.equal(trialText({ state: "none" }), "not started");
    assert.equal(trialText({ state: "active", expires_at: "2026-03-08T00:00:00Z" }), "active (app, until 2026-03-08 00:00 UTC)");
    assert.equal(trialText({ state: "expired", product_id: "garden", expires_at: null }), "expired (garden, until —)");
  });
});

describe("subscriptions", () => {
  it("puts each subscription's periods in one row, a period revoked early ending at its revocation", () => {
    const periods = [
      { store: "app_store", original_transaction_id: "1", product_id: "garden", period_type: "trial", transaction_id: "1", starts_at: "2026-03-01T00:00:00Z", ends_at: "2026-03-08T00:00:00Z", revoked_at: null },
      { store: "play_store", original_transaction_id: "1", product_id: "seeds", period_type: "normal", transaction_id: "9", starts_at: "2026-03-02T00:00:00Z", ends_at: "2026-04-02T00:00:00Z", revoked_at: null },
      { store: "app_store", original_transaction_id: "1", product_id: "garden", period_type: "normal", transaction_id: "2", starts_at: "2026-03-08T00:00:00Z", ends_at: "2026-04-08T00:00:00Z", revoked_at: "2026-03-20T12:00:00Z" },
    ];
    const rows = timelineRows(periods);
    assert.deepEqual(
      rows.map((row) => [row.label, row.spans.map((span) => [span.start, span.end, span.className])]),
      [
        [
          "garden",
          [
            ["2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z", "trial"],
            ["2026-03-08T00:00:00Z", "2026-03-20T12:00:00Z", "revoked"],
          ],
        ],
        ["seeds", [["2026-03-02T00:00:00Z", "2026-04-02T00:00:00Z", "normal"]]],
      ],
    );
    assert.equal(rows[0].spans[1].title, "garden normal: 2026-03-08 00:00 UTC to 2026-04-08 00:00 UTC, revoked 2026-03-20 12:00 UTC");
    assert.deepEqual(timelineRows([]), []);
  });
  it("keeps a period's end when it was revoked after it", () => {
    const [row] = timelineRows([
      { store: "s", original_transaction_id: "1", product_id: "p", period_type: "normal", starts_at: "2026-01-01T00:00:00Z", ends_at: "2026-02-01T00:00:00Z", revoked_at: "2026-05-01T00:00:00Z" },
    ]);
    assert.equal(row.spans[0].end, "2026-02-01T00:00:00Z");
    assert.equal(row.spans[0].className, "revoked");
  });
  it("names periods and renewal as the page shows them", () => {
    assert.equal(periodKind("normal"), "paid");
    assert.equal(periodKind("intro"), "intro");
    assert.equal(willRenewText(true), "yes");
    assert.equal(willRenewText(false), "no");
    assert.equal(willRenewText(null), "—");
  });
});

describe("devices and the ledger", () => {
  it("groups devices by purchase, in the order first seen, with the latest sighting", () => {
    const purchases = purchasesWithDevices([
      { store: "app_store", original_transaction_id: "1", device_id: "a", last_seen: "2026-03-02T00:00:00Z" },
      { store: "play_store", original_transaction_id: "1", device_id: "b", last_seen: "2026-03-01T00:00:00Z" },
      { store: "app_store", original_transaction_id: "1", device_id: "c", last_seen: "2026-03-05T00:00:00Z" },
      { store: "app_store", original_transaction_id: "1", device_id: "d", last_seen: "2026-03-03T00:00:00Z" },
    ]);
    assert.deepEqual(
      purchases.map((purchase) => [purchase.store, purchase.original, purchase.devices.map((device) => device.device_id), purchase.lastSeen]),
      [
        ["app_store", "1", ["a", "c", "d"], "2026-03-05T00:00:00Z"],
        ["play_store", "1", ["b"], "2026-03-01T00:00:00Z"],
      ],
    );
    assert.deepEqual(purchasesWithDevices([]), []);
  });
  it("signs ledger changes and lists packs", () => {
    assert.equal(deltaText(3), "+3");
    assert.equal(deltaText(-1), "-1");
    assert.equal(deltaText(0), "0");
    assert.equal(packsText([{ product_id: "garden", version: 3 }, { product_id: "seeds", version: 1 }]), "garden 3, seeds 1");
    assert.equal(packsText([]), "—");
  });
});

describe("events and deliveries", () => {
  it("sums a delivery up with its attempts, error and times", () => {
    assert.deepEqual(
      deliverySummary({ state: "dead", attempts: 1, last_error: "HTTP 500", delivered_at: null, next_attempt_at: null }),
      { tone: "bad", detail: "1 attempt, HTTP 500" },
    );
    assert.deepEqual(
      deliverySummary({ state: "pending", attempts: 2, next_attempt_at: "2026-03-01T10:00:00Z" }),
      { tone: "warn", detail: "2 attempts, next 2026-03-01 10:00 UTC" },
    );
    assert.deepEqual(deliverySummary({ state: "delivered", attempts: 0, delivered_at: "2026-03-01T10:00:00Z" }), {
      tone: "good",
      detail: "0 attempts, delivered 2026-03-01 10:00 UTC",
    });
    assert.equal(deliverySummary({ state: "odd", attempts: 1 }).tone, "neutral");
  });
  it("writes an event's data in a line", () => {
    assert.equal(
      eventSummary({ data: { store_product_id: "com.a", entitlement_id: "pro", transaction_id: "7", quantity: 2, reason: "refund", from_app_user_id: "a", to_app_user_id: "b" } }),
      "com.a, entitlement pro, transaction 7, × 2, refund, from a, to b",
    );
    assert.equal(eventSummary({ data: { product_id: "p", store_product_id: "s", quantity: 0 } }), "p");
    assert.equal(eventSummary({}), "");
  });
});

describe("a customer's LTV", () => {
  const answer = {
    app_user_id: "gardener-42",
    environment: "production",
    first_purchase_date: "2026-01-04T09:12:00Z",
    currencies: [
      { currency: "GBP", transactions: 1, refunds: 0, paid_milliunits: 4990, refunded_milliunits: 0, ltv_milliunits: 4990 },
      { currency: "USD", transactions: 3, refunds: 1, paid_milliunits: 29970, refunded_milliunits: 9990, ltv_milliunits: 19980 },
    ],
    converted: { currency: "EUR", transactions: 4, refunds: 1, paid_milliunits: 33110, refunded_milliunits: 9110, ltv_milliunits: 24000, rates: "GBP/EUR=0.85@2026-01-02" },
  };
  it("lists the converted figures first, then each currency paid, as the API gives them", () => {
    const lines = ltvLines(answer);
    assert.deepEqual(lines.map((line) => [line.currency, line.converted, line.ltv, line.paid, line.refunded]), [
      ["EUR", true, 24000, 33110, 9110],
      ["GBP", false, 4990, 4990, 0],
      ["USD", false, 19980, 29970, 9990],
    ]);
    assert.equal(lines[0].rates, "GBP/EUR=0.85@2026-01-02");
    assert.deepEqual(ltvLines({ ...answer, converted: null, currencies: [] }), []);
  });
  it("asks in the app's base currency when it loaded rates, as paid otherwise", () => {
    assert.deepEqual(ltvQuery([{ base: "EUR", currency: "USD", day: "2026-01-02", rate: "1.09" }]), { environment: "production", currency: "EUR" });
    assert.deepEqual(ltvQuery([]), { environment: "production" });
  });
});
