// The read-only parts of a customer's page: why each entitlement is active (GET /v1/customers/{id}/explain), the
// subscriptions as a timeline (the history's subscription_periods), purchases, the consumable ledger, and events
// with their webhook deliveries.

import { timelineChart } from "../chart.js";
import { h, badge, table } from "../dom.js";
import { count, dateTime, money, storeName, words } from "../pure/format.js";

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

/** A state as a badge coloured by what it means for access. */
export function stateBadge(state) {
  return badge(words(state), stateTones[state] || "neutral");
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
  const where = [store, purchase, reason.environment && reason.environment !== "production" ? reason.environment : null]
    .filter(Boolean)
    .join(", ");
  switch (reason.source) {
    case "subscription":
      return `Subscription to ${reason.product_id || "an unknown product"}${where ? ` (${where})` : ""}: ${words(reason.state)}, ${period(reason)}.`;
    case "purchase":
      return `Purchase of ${reason.product_id || "an unknown product"}${where ? ` (${where})` : ""}: ${words(reason.state)}, ${period(reason)}.`;
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

/** The entitlements with every reason, the first being the one customer info shows. */
export function entitlementsSection(explanation) {
  const all = Object.entries(explanation.entitlements || {}).sort(([a], [b]) => a.localeCompare(b));
  // Entitlements with a source first (active ones on top); those nobody ever gave this customer in one line.
  const entries = all
    .filter(([, entitlement]) => entitlement.reasons.length > 0)
    .sort(([, a], [, b]) => Number(b.active) - Number(a.active));
  const never = all.filter(([, entitlement]) => entitlement.reasons.length === 0).map(([id]) => id);
  const unused = never.length
    ? h("p", { class: "muted", id: "never-entitled", text: `Never had: ${never.join(", ")}.` })
    : null;
  if (entries.length === 0) return [h("p", { text: "This customer has no entitlement, and never had one." }), unused];
  const list = h(
    "ul",
    { class: "entitlements", id: "entitlements" },
    entries.map(([id, entitlement]) =>
      h(
        "li",
        { class: "entitlement", dataset: { entitlement: id, active: entitlement.active } },
        h(
          "div",
          { class: "entitlement-head" },
          h("strong", { text: id }),
          badge(entitlement.active ? "active" : "inactive", entitlement.active ? "good" : "neutral"),
          entitlement.granted_by_products.length
            ? h("span", { class: "muted", text: ` granted by ${entitlement.granted_by_products.join(", ")}` })
            : null,
        ),
        entitlement.reasons.length
          ? h(
              "ol",
              { class: "reasons", "aria-label": `Why ${id} is ${entitlement.active ? "active" : "inactive"}` },
              entitlement.reasons.map((reason, index) =>
                h(
                  "li",
                  { class: reason.active ? "reason active" : "reason", dataset: { source: reason.source } },
                  index === 0 && entitlement.active ? h("span", { class: "visually-hidden", text: "Shown now: " }) : null,
                  reasonText(reason),
                ),
              ),
            )
          : null,
      ),
    ),
  );
  return [list, unused];
}

/** The subscriptions: their state now, and every period on a timeline. */
export function subscriptionsSection(customer, periods) {
  const chains = new Map();
  for (const item of periods) {
    const key = `${item.store}:${item.original_transaction_id}`;
    if (!chains.has(key)) chains.set(key, []);
    chains.get(key).push(item);
  }
  const parts = [
    table(
      ["Product", "Store", "Original transaction", "State", "Period", "Started", "Expires", "Renews"],
      customer.subscriptions.map((subscription) => [
        subscription.product_id || subscription.store_product_id || "—",
        storeName(subscription.store),
        h("code", { text: subscription.original_transaction_id }),
        stateBadge(subscription.state),
        words(subscription.period_type),
        dateTime(subscription.started_at),
        dateTime(subscription.expires_at),
        subscription.will_renew === null ? "—" : subscription.will_renew ? "yes" : "no",
      ]),
      { caption: "Subscriptions now" },
    ),
  ];
  if (chains.size) {
    parts.push(
      timelineChart({
        title: "Subscription periods",
        rows: [...chains.values()].map((items) => ({
          label: items[0].product_id,
          spans: items.map((item) => ({
            start: item.starts_at,
            end: item.revoked_at && item.revoked_at < item.ends_at ? item.revoked_at : item.ends_at,
            className: item.revoked_at ? "revoked" : item.period_type,
            title: `${item.product_id} ${item.period_type}: ${dateTime(item.starts_at)} to ${dateTime(item.ends_at)}${
              item.revoked_at ? `, revoked ${dateTime(item.revoked_at)}` : ""
            }`,
          })),
        })),
      }),
      h(
        "ul",
        { class: "legend" },
        ["trial", "intro", "normal", "revoked"].map((name) =>
          h("li", {}, h("span", { class: `swatch span ${name}`, "aria-hidden": "true" }), name === "normal" ? "paid" : name),
        ),
      ),
      table(
        ["Product", "Kind", "Starts", "Ends", "Transaction", "Revoked"],
        periods.map((item) => [
          item.product_id,
          item.period_type === "normal" ? "paid" : item.period_type,
          dateTime(item.starts_at),
          dateTime(item.ends_at),
          h("code", { text: item.transaction_id }),
          item.revoked_at ? `${dateTime(item.revoked_at)} (${words(item.revocation_reason)})` : "—",
        ]),
        { caption: "Every period" },
      ),
    );
  }
  return parts;
}

/** Every store transaction applied to the customer. */
export function transactionsTable(transactions) {
  return table(
    ["Purchased", "Product", "Store", "Transaction", "Original transaction", "Quantity", "Price", "Environment", "Revoked"],
    transactions.map((transaction) => [
      dateTime(transaction.purchase_date),
      transaction.product_id || transaction.store_product_id,
      storeName(transaction.store),
      h("code", { text: transaction.transaction_id }),
      h("code", { text: transaction.original_transaction_id }),
      count(transaction.quantity),
      money(transaction.price_milliunits, transaction.currency),
      words(transaction.environment),
      transaction.revoked_at ? dateTime(transaction.revoked_at) : "—",
    ]),
    { caption: "Transactions" },
  );
}

/** Consumable balances and the ledger of units in and out. */
export function ledgerSection(customer, ledger) {
  const balances = Object.entries(customer.consumable_balances || {});
  return [
    balances.length
      ? h(
          "p",
          { class: "balances" },
          "Balances: ",
          balances.map(([product, units], index) => [index ? ", " : "", h("strong", { text: `${product} ${count(units)}` })]),
        )
      : h("p", { text: "No consumable balance." }),
    table(
      ["When", "Product", "Change", "Reason", "Transaction"],
      ledger.map((line) => [
        dateTime(line.created_at),
        line.product_id,
        h("span", { class: line.delta < 0 ? "number negative" : "number", text: line.delta > 0 ? `+${line.delta}` : String(line.delta) }),
        words(line.reason),
        line.transaction_id ? h("code", { text: line.transaction_id }) : line.idempotency_key || "—",
      ]),
      { caption: "Consumable ledger" },
    ),
  ];
}

/** A webhook delivery's state as a badge with its attempts and last error. */
export function deliveryText(delivery) {
  if (!delivery) return h("span", { class: "muted", text: "no webhook" });
  const tone = { delivered: "good", pending: "warn", dead: "bad" }[delivery.state] || "neutral";
  const detail = [
    `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`,
    delivery.last_error,
    delivery.delivered_at ? `delivered ${dateTime(delivery.delivered_at)}` : null,
    delivery.next_attempt_at ? `next ${dateTime(delivery.next_attempt_at)}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  return h("span", { class: "delivery" }, badge(delivery.state, tone), " ", h("small", { text: detail }));
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
