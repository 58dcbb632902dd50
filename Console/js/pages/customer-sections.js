// The read-only parts of a customer's page: why each entitlement is active (GET /v1/customers/{id}/explain), the
// subscriptions as a timeline (the history's subscription_periods), purchases, the consumable ledger, and webhook
// deliveries. Markup only: the words and the timeline's rows come from pure/customer.js.

import { timelineChart } from "../chart.js";
import { h, badge, table } from "../dom.js";
import {
  deliverySummary,
  deltaText,
  explainedEntitlements,
  ltvLines,
  periodKind,
  reasonText,
  stateTone,
  timelineRows,
  willRenewText,
} from "../pure/customer.js";
import { count, dateTime, money, storeName, words } from "../pure/format.js";

/** A state as a badge coloured by what it means for access. */
export function stateBadge(state) {
  return badge(words(state), stateTone(state));
}

function entitlementView(id, entitlement) {
  return h(
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
  );
}

/** The entitlements with every reason, the first being the one customer info shows. */
export function entitlementsSection(explanation) {
  // Entitlements with a source first (active ones on top); those nobody ever gave this customer in one line.
  const { given, never } = explainedEntitlements(explanation);
  const unused = never.length
    ? h("p", { class: "muted", id: "never-entitled", text: `Never had: ${never.join(", ")}.` })
    : null;
  if (given.length === 0) return [h("p", { text: "This customer has no entitlement, and never had one." }), unused];
  const list = h("ul", { class: "entitlements", id: "entitlements" }, given.map(([id, entitlement]) => entitlementView(id, entitlement)));
  return [list, unused];
}

function subscriptionsNow(customer) {
  return table(
    ["Product", "Store", "Original transaction", "State", "Period", "Started", "Expires", "Renews"],
    customer.subscriptions.map((subscription) => [
      subscription.product_id || subscription.store_product_id || "—",
      storeName(subscription.store),
      h("code", { text: subscription.original_transaction_id }),
      stateBadge(subscription.state),
      words(subscription.period_type),
      dateTime(subscription.started_at),
      dateTime(subscription.expires_at),
      willRenewText(subscription.will_renew),
    ]),
    { caption: "Subscriptions now" },
  );
}

function periodsView(periods) {
  return [
    timelineChart({ title: "Subscription periods", rows: timelineRows(periods) }),
    h(
      "ul",
      { class: "legend" },
      ["trial", "intro", "normal", "revoked"].map((name) =>
        h("li", {}, h("span", { class: `swatch span ${name}`, "aria-hidden": "true" }), periodKind(name)),
      ),
    ),
    table(
      ["Product", "Kind", "Starts", "Ends", "Transaction", "Revoked"],
      periods.map((item) => [
        item.product_id,
        periodKind(item.period_type),
        dateTime(item.starts_at),
        dateTime(item.ends_at),
        h("code", { text: item.transaction_id }),
        item.revoked_at ? `${dateTime(item.revoked_at)} (${words(item.revocation_reason)})` : "—",
      ]),
      { caption: "Every period" },
    ),
  ];
}

/** The subscriptions: their state now, and every period on a timeline. */
export function subscriptionsSection(customer, periods) {
  return [subscriptionsNow(customer), periods.length ? periodsView(periods) : null];
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

/** The customer's realized LTV: what they paid, refunds taken off, converted to the app's base currency (with the
 *  rates used) and per currency paid; or why it could not be read. */
export function ltvSection(answer) {
  if (answer.unavailable) {
    return h("p", { class: "muted", text: `The lifetime value could not be read: ${answer.unavailable.message}` });
  }
  const lines = ltvLines(answer);
  if (lines.length === 0) return h("p", { class: "ltv", text: "No paid transactions: realized LTV 0." });
  return table(
    ["Currency", "Realized LTV", "Paid", "Refunded", "Transactions", "Refunds", "Rates used"],
    lines.map((line) => [
      line.converted ? `${line.currency} (converted)` : line.currency,
      h("strong", { class: "ltv-value", dataset: { currency: line.currency, milliunits: line.ltv }, text: money(line.ltv, line.currency) }),
      money(line.paid, line.currency),
      money(line.refunded, line.currency),
      count(line.transactions),
      count(line.refunds),
      line.converted ? line.rates || "none needed" : "—",
    ]),
    { caption: `Realized lifetime value (${words(answer.environment)}; first purchase ${answer.first_purchase_date ? dateTime(answer.first_purchase_date) : "—"})`, className: "ltv" },
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
        h("span", { class: line.delta < 0 ? "number negative" : "number", text: deltaText(line.delta) }),
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
  const { tone, detail } = deliverySummary(delivery);
  return h("span", { class: "delivery" }, badge(delivery.state, tone), " ", h("small", { text: detail }));
}
