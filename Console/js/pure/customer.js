// The arithmetic of a customer's page and of the events tables: why an entitlement is given (in words), the
// subscriptions' periods on a timeline, purchases grouped with their devices, the ledger, webhook deliveries and
// events in a line. Pure: pages/customer.js, pages/customer-sections.js and pages/events.js build the markup.

import { dateTime, storeName, words } from "./format.js";

const stateTones = {
  active: "good",
  owned: "good",
  trial: "good",
  grace_period: "warn",
  billing_retry: "warn",
  scheduled: "neutral",
  paused: "warn",
  expired: "neutral",
  revoked: "bad",
  refunded: "bad",
};

/** The tone of a subscription's or a reason's state: what it means for access. */
export function stateTone(state) {
  return stateTones[state] || "neutral";
}

/** The customer's free trial in words. */
export function trialText(trial) {
  if (trial.state === "none") return "not started";
  return `${trial.state} (${trial.product_id || "app"}, until ${dateTime(trial.expires_at)})`;
}

/** Every entitlement id the catalog's products grant, sorted (none when the products could not be read). */
export function grantableEntitlements(products) {
  if (products.unavailable) return [];
  return [...new Set(products.products.flatMap((product) => product.entitlements || []))].sort();
}

/** When a grant made at `now` (milliseconds) for `days` days ends, as an ISO instant in whole seconds. */
export function grantExpiry(days, now = Date.now()) {
  return new Date(now + Number(days) * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Whether a grant can still be revoked (it is active, or starts later). */
export function isRevocable(grant) {
  return grant.state === "active" || grant.state === "scheduled";
}

function period(reason) {
  const since = reason.since ? `since ${dateTime(reason.since)}` : "";
  const until = reason.until ? `until ${dateTime(reason.until)}` : "with no end";
  return [since, until].filter(Boolean).join(", ");
}

/** One reason an entitlement is (or was) given, as a sentence support can read out. */
export function reasonText(reason) {
  const store = reason.store ? storeName(reason.store) : null;
  const purchase = reason.original_transaction_id ? `original transaction ${reason.original_transaction_id}` : null;
  const environment = reason.environment && reason.environment !== "production" ? reason.environment : null;
  const where = [store, purchase, environment].filter(Boolean).join(", ");
  const of = `${reason.product_id || "an unknown product"}${where ? ` (${where})` : ""}`;
  switch (reason.source) {
    case "subscription":
      return `Subscription to ${of}: ${words(reason.state)}, ${period(reason)}.`;
    case "purchase":
      return `Purchase of ${of}: ${words(reason.state)}, ${period(reason)}.`;
    case "trial":
      return `The app's free trial${reason.product_id ? ` of ${reason.product_id}` : ""}: ${words(reason.state)}, ${period(reason)}.`;
    case "promotional":
      return `Promotional grant ${reason.grant_id || ""}: ${words(reason.state)}, ${period(reason)}.`;
    case "free":
    case "included":
    case "grandfathered":
      return `${reason.product_id || "A product"} owned without a purchase (${reason.source}), ${period(reason)}.`;
    default:
      return `${words(reason.source)}: ${words(reason.state)}, ${period(reason)}.`;
  }
}

/** The explanation's entitlements: `given`, `[id, entitlement]` pairs with at least one reason (active ones first,
 *  then by id), and `never`, the ids of those the customer never had. */
export function explainedEntitlements(explanation) {
  const all = Object.entries(explanation.entitlements || {}).sort(([a], [b]) => a.localeCompare(b));
  const given = all
    .filter(([, entitlement]) => entitlement.reasons.length > 0)
    .sort(([, a], [, b]) => Number(b.active) - Number(a.active));
  const never = all.filter(([, entitlement]) => entitlement.reasons.length === 0).map(([id]) => id);
  return { given, never };
}

/** A subscription period's kind as the page names it (`normal` is `paid`). */
export function periodKind(type) {
  return type === "normal" ? "paid" : type;
}

/** Whether a subscription renews, in a word (`—` when the store does not say). */
export function willRenewText(willRenew) {
  if (willRenew === null) return "—";
  return willRenew ? "yes" : "no";
}

/** The subscription periods as timeline rows: one row per subscription (store and original transaction), each
 *  period a span ending at its revocation when it was revoked early. */
export function timelineRows(periods) {
  const chains = new Map();
  for (const item of periods) {
    const key = `${item.store}:${item.original_transaction_id}`;
    if (!chains.has(key)) chains.set(key, []);
    chains.get(key).push(item);
  }
  return [...chains.values()].map((items) => ({
    label: items[0].product_id,
    spans: items.map((item) => ({
      start: item.starts_at,
      end: item.revoked_at && item.revoked_at < item.ends_at ? item.revoked_at : item.ends_at,
      className: item.revoked_at ? "revoked" : item.period_type,
      title: `${item.product_id} ${item.period_type}: ${dateTime(item.starts_at)} to ${dateTime(item.ends_at)}${
        item.revoked_at ? `, revoked ${dateTime(item.revoked_at)}` : ""
      }`,
    })),
  }));
}

/** A ledger line's change in units, signed (`+3`, `-1`, `0`). */
export function deltaText(delta) {
  return delta > 0 ? `+${delta}` : String(delta);
}

/** The devices that presented the customer's purchases, grouped by purchase (store and original transaction) in
 *  the order first seen; `lastSeen` is the latest of its devices' `last_seen`. */
export function purchasesWithDevices(devices) {
  const purchases = new Map();
  for (const device of devices) {
    const key = `${device.store}/${device.original_transaction_id}`;
    if (!purchases.has(key)) purchases.set(key, { store: device.store, original: device.original_transaction_id, devices: [] });
    purchases.get(key).devices.push(device);
  }
  return [...purchases.values()].map((purchase) => ({
    ...purchase,
    lastSeen: purchase.devices.map((device) => device.last_seen).sort().pop(),
  }));
}

/** A content device's packs in a line (`garden 3, seeds 1`), or `—`. */
export function packsText(packs) {
  return packs.map((pack) => `${pack.product_id} ${pack.version}`).join(", ") || "—";
}

/** A webhook delivery's tone and its attempts, last error and times in a line. */
export function deliverySummary(delivery) {
  const tone = { delivered: "good", pending: "warn", dead: "bad" }[delivery.state] || "neutral";
  const detail = [
    `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`,
    delivery.last_error,
    delivery.delivered_at ? `delivered ${dateTime(delivery.delivered_at)}` : null,
    delivery.next_attempt_at ? `next ${dateTime(delivery.next_attempt_at)}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  return { tone, detail };
}

/** A short description of an event's data. */
export function eventSummary(event) {
  const data = event.data || {};
  return [
    data.product_id || data.store_product_id,
    data.entitlement_id ? `entitlement ${data.entitlement_id}` : null,
    data.transaction_id ? `transaction ${data.transaction_id}` : null,
    data.quantity ? `× ${data.quantity}` : null,
    data.reason,
    data.from_app_user_id ? `from ${data.from_app_user_id}` : null,
    data.to_app_user_id ? `to ${data.to_app_user_id}` : null,
  ]
    .filter(Boolean)
    .join(", ");
}

/** The lines of a customer's realized LTV (GET /v1/admin/customers/{id}/ltv): the converted one first (when the
 *  answer has it), then one per currency paid, each `{ currency, converted, paid, refunded, ltv, transactions,
 *  refunds, rates }` with the API's milliunits. */
export function ltvLines(answer) {
  const line = (figures, converted) => ({
    currency: figures.currency,
    converted,
    paid: figures.paid_milliunits,
    refunded: figures.refunded_milliunits,
    ltv: figures.ltv_milliunits,
    transactions: figures.transactions,
    refunds: figures.refunds,
    rates: figures.rates || "",
  });
  return [...(answer.converted ? [line(answer.converted, true)] : []), ...(answer.currencies || []).map((figures) => line(figures, false))];
}

/** The query of a customer's LTV: in the app's base currency (the loaded exchange rates'), when it loaded any. */
export function ltvQuery(rates, environment = "production") {
  const base = (rates || []).map((rate) => rate.base).find(Boolean);
  return base ? { environment, currency: base } : { environment };
}
