// The overview's arithmetic: the figures of a range from the reports API's answers (sales per day and per product,
// subscriptions per day), the series its charts draw, and sales per product. Pure: pages/overview.js fetches and
// draws.

import { count, money, storeName } from "./format.js";

/** The reports' query for `range`: the most rows one answer may hold, as a console range is never cut into pages. */
export function reportQuery(range) {
  return { from: range.from, to: range.to, environment: range.environment, limit: 100000 };
}

/** The sum of `key` over `rows` (a missing value counting 0). */
export function sum(rows, key) {
  return rows.reduce((total, row) => total + (row[key] || 0), 0);
}

/** Per-day values of `key` (summed over the rows of a day, e.g. its currencies), one per day of `days`; the rows
 *  `filter` refuses are left out. */
export function perDay(rows, days, key, filter = () => true) {
  const byDay = new Map();
  for (const row of rows) {
    if (!filter(row)) continue;
    byDay.set(row.day, (byDay.get(row.day) || 0) + (row[key] || 0));
  }
  return days.map((day) => byDay.get(day) || 0);
}

/** The currencies of the sales totals (the totals' rows without a currency left out), in their order. */
export function currencies(totals) {
  return totals.filter((total) => total.currency).map((total) => total.currency);
}

/** A figure tile: `name` (data-figure), `label`, the raw `value` (data-value, empty when there is none) and `text`. */
function tile(name, label, value, text, extra = {}) {
  return { name, label, value: value ?? "", text, extra };
}

function countTile(name, label, value) {
  return tile(name, label, value ?? 0, count(value ?? 0));
}

/** The sales figures: counts summed over currencies, revenue and refunded money per currency. */
export function salesTiles(totals) {
  const priced = totals.filter((total) => total.currency);
  const revenue = priced.length
    ? priced.map((total) =>
        tile("revenue", `Revenue (${total.currency})`, total.revenue_milliunits, money(total.revenue_milliunits, total.currency), {
          currency: total.currency,
        }),
      )
    : [tile("revenue", "Revenue", "", "—")];
  const refunded = priced
    .filter((total) => total.refunded_milliunits)
    .map((total) =>
      tile("refunded", `Refunded (${total.currency})`, total.refunded_milliunits, money(total.refunded_milliunits, total.currency), {
        currency: total.currency,
      }),
    );
  return [
    countTile("purchases", "Purchases", sum(totals, "purchases")),
    countTile("renewals", "Renewals", sum(totals, "renewals")),
    countTile("units", "Units sold", sum(totals, "units")),
    ...revenue,
    countTile("refunds", "Refunds", sum(totals, "refunds")),
    ...refunded,
  ];
}

/** The subscription figures: the range's totals, and the active and in-trial counts on its last day `to`. */
export function subscriptionTiles(subscriptions, to) {
  const totals = subscriptions.totals[0] || {};
  const lastDay = subscriptions.rows.find((row) => row.day === to) || {};
  return [
    countTile("trials_started", "Trials started", totals.trials_started),
    countTile("trials_converted", "Trials converted", totals.trials_converted),
    countTile("new_subscriptions", "New subscriptions", totals.new_subscriptions),
    countTile("churned", "Churned", totals.churned),
    countTile("active_subscriptions", `Active subscriptions on ${to}`, lastDay.active),
    countTile("subscriptions_in_trial", `In trial on ${to}`, lastDay.trial),
  ];
}

/** Milliunits on a money axis: units with at most two decimals, no currency (`1,234.5`). */
export function moneyAxis(value) {
  return (value / 1000).toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/** The charts per day, in order: `{ kind: "bar" | "line", title, series, ... }` over `days`. */
export function dailyCharts(days, salesRows, subscriptionRows, currencyList) {
  const sales = (key, filter) => perDay(salesRows, days, key, filter);
  const subscriptions = (key) => perDay(subscriptionRows, days, key);
  const grace = subscriptions("grace_period");
  const retry = subscriptions("billing_retry");
  const revenue = currencyList.map((currency) => ({
    kind: "bar",
    title: `Revenue per day (${currency})`,
    series: [{ name: `Revenue (${currency})`, values: sales("revenue_milliunits", (row) => row.currency === currency) }],
    format: (value) => money(value, currency),
    axisFormat: moneyAxis,
    integer: false,
  }));
  const salesSeries = [
    { name: "Purchases", values: sales("purchases") },
    { name: "Renewals", values: sales("renewals") },
  ];
  const subscriptionSeries = [
    { name: "Active", values: subscriptions("active") },
    { name: "In trial", values: subscriptions("trial") },
    { name: "Grace or billing retry", values: days.map((_, index) => grace[index] + retry[index]) },
  ];
  return [
    { kind: "bar", title: "Sales per day", series: salesSeries },
    ...revenue,
    { kind: "bar", title: "Refunds per day", series: [{ name: "Refunds", values: sales("refunds") }] },
    { kind: "line", title: "Subscriptions per day", series: subscriptionSeries },
  ];
}

/** Sales per product (rows of the sales report grouped by product, one per currency, and by store when asked),
 *  most sold first (purchases and renewals); `revenue` maps each currency to its milliunits, `stores` lists the
 *  stores it sold in, in the order first seen. */
export function salesPerProduct(rows) {
  const products = new Map();
  for (const row of rows) {
    const name = row.product_id || row.store_product_id || "unknown";
    const entry = products.get(name) || { name, purchases: 0, renewals: 0, units: 0, refunds: 0, revenue: new Map(), stores: [] };
    if (row.store && !entry.stores.includes(row.store)) entry.stores.push(row.store);
    entry.purchases += row.purchases;
    entry.renewals += row.renewals;
    entry.units += row.units;
    entry.refunds += row.refunds;
    if (row.currency && row.revenue_milliunits !== null) {
      entry.revenue.set(row.currency, (entry.revenue.get(row.currency) || 0) + row.revenue_milliunits);
    }
    products.set(name, entry);
  }
  return [...products.values()].sort((a, b) => b.purchases + b.renewals - (a.purchases + a.renewals));
}

/** A product's revenue in every currency it sold in (`USD 1.00, EUR 2.00`), or `—`. */
export function revenueText(entry) {
  return [...entry.revenue].map(([currency, value]) => money(value, currency)).join(", ") || "—";
}

/** The stores a product sold in, by name (`App Store, Stripe`), or `—`. */
export function storesText(entry) {
  return entry.stores.map(storeName).join(", ") || "—";
}

/** Whether the range shows nothing: no sales, and no subscription active or in trial on any day. */
export function isQuiet(salesRows, subscriptionRows) {
  return salesRows.length === 0 && subscriptionRows.every((row) => !row.active && !row.trial);
}

/** The CSV downloads of the range: `{ path, query, label }`. */
export function csvDownloads(query) {
  return [
    { path: "/v1/admin/reports/sales", query: { ...query, group_by: "day,product,store" }, label: "Sales as CSV" },
    { path: "/v1/admin/reports/subscriptions", query: { ...query, group_by: "day,product" }, label: "Subscriptions as CSV" },
    { path: "/v1/admin/reports/usage", query: { ...query, group_by: "app_version" }, label: "Purchases by app version as CSV" },
  ];
}
