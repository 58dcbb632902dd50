// Overview: sales, revenue, refunds, trials and subscriptions for a range of UTC days, from the reports API
// (GET /v1/admin/reports/sales and /subscriptions). Every figure is shown as a number (with its raw value in
// data-value) beside the charts, and each report can be downloaded as CSV.

import { get, withQuery } from "../api.js";
import { barChart, horizontalBarChart, lineChart } from "../chart.js";
import { h, append, pageHeading, replace, table } from "../dom.js";
import { count, daysBetween, money } from "../format.js";
import { rangeForm, readRange } from "../range.js";

/** A figure tile: its name, its text, and the raw value a test or a script can read. */
function tile(name, label, value, text, extra = {}) {
  return h(
    "div",
    { class: "tile", dataset: { figure: name, value: value ?? "", ...extra } },
    h("span", { class: "tile-label", text: label }),
    h("span", { class: "tile-value", text }),
  );
}

function sum(rows, key) {
  return rows.reduce((total, row) => total + (row[key] || 0), 0);
}

/** Per-day values of `key` (summed over currencies), one per day of `days`. */
function perDay(rows, days, key, filter = () => true) {
  const byDay = new Map();
  for (const row of rows) {
    if (!filter(row)) continue;
    byDay.set(row.day, (byDay.get(row.day) || 0) + (row[key] || 0));
  }
  return days.map((day) => byDay.get(day) || 0);
}

function csvLink(path, query, label) {
  return h("a", { class: "button small", href: withQuery(path, { ...query, format: "csv" }), download: "", text: label });
}

export async function render(section, { query, navigate }) {
  const range = readRange(query);
  // The most rows one answer may hold: a console range is never cut into pages.
  const reportQuery = { from: range.from, to: range.to, environment: range.environment, limit: 100000 };
  const [salesByDay, salesByProduct, subscriptions] = await Promise.all([
    get("/v1/admin/reports/sales", { ...reportQuery, group_by: "day" }),
    get("/v1/admin/reports/sales", { ...reportQuery, group_by: "product" }),
    get("/v1/admin/reports/subscriptions", { ...reportQuery, group_by: "day" }),
  ]);
  const days = daysBetween(range.from, range.to);
  const totals = salesByDay.totals;
  const currencies = totals.filter((total) => total.currency).map((total) => total.currency);
  const subscriptionTotals = subscriptions.totals[0] || {};
  const lastDay = subscriptions.rows.find((row) => row.day === range.to) || {};

  replace(
    section,
    pageHeading("Overview"),
    h("p", { class: "lede", text: `${range.from} to ${range.to} (UTC days), ${range.environment} purchases.` }),
    range.problem ? h("p", { class: "error", role: "alert", text: range.problem }) : null,
    rangeForm("/overview", range, navigate),
  );

  const figures = h(
    "div",
    { class: "tiles", id: "figures", "aria-label": "Figures of the range" },
    tile("purchases", "Purchases", sum(totals, "purchases"), count(sum(totals, "purchases"))),
    tile("renewals", "Renewals", sum(totals, "renewals"), count(sum(totals, "renewals"))),
    tile("units", "Units sold", sum(totals, "units"), count(sum(totals, "units"))),
    currencies.length === 0
      ? tile("revenue", "Revenue", "", "—")
      : totals
          .filter((total) => total.currency)
          .map((total) =>
            tile(
              "revenue",
              `Revenue (${total.currency})`,
              total.revenue_milliunits,
              money(total.revenue_milliunits, total.currency),
              { currency: total.currency },
            ),
          ),
    tile("refunds", "Refunds", sum(totals, "refunds"), count(sum(totals, "refunds"))),
    totals
      .filter((total) => total.currency && total.refunded_milliunits)
      .map((total) =>
        tile(
          "refunded",
          `Refunded (${total.currency})`,
          total.refunded_milliunits,
          money(total.refunded_milliunits, total.currency),
          { currency: total.currency },
        ),
      ),
    tile("trials_started", "Trials started", subscriptionTotals.trials_started ?? 0, count(subscriptionTotals.trials_started ?? 0)),
    tile(
      "trials_converted",
      "Trials converted",
      subscriptionTotals.trials_converted ?? 0,
      count(subscriptionTotals.trials_converted ?? 0),
    ),
    tile(
      "new_subscriptions",
      "New subscriptions",
      subscriptionTotals.new_subscriptions ?? 0,
      count(subscriptionTotals.new_subscriptions ?? 0),
    ),
    tile("churned", "Churned", subscriptionTotals.churned ?? 0, count(subscriptionTotals.churned ?? 0)),
    tile("active_subscriptions", `Active subscriptions on ${range.to}`, lastDay.active ?? 0, count(lastDay.active ?? 0)),
    tile("subscriptions_in_trial", `In trial on ${range.to}`, lastDay.trial ?? 0, count(lastDay.trial ?? 0)),
  );
  append(section, h("h2", { text: "Figures" }), figures);

  const grace = perDay(subscriptions.rows, days, "grace_period");
  const retry = perDay(subscriptions.rows, days, "billing_retry");
  const troubled = days.map((_, index) => grace[index] + retry[index]);
  const charts = h("div", { class: "charts" });
  append(
    charts,
    barChart({
      title: "Sales per day",
      labels: days,
      series: [
        { name: "Purchases", values: perDay(salesByDay.rows, days, "purchases") },
        { name: "Renewals", values: perDay(salesByDay.rows, days, "renewals") },
      ],
    }),
    currencies.map((currency) =>
      barChart({
        title: `Revenue per day (${currency})`,
        labels: days,
        series: [
          {
            name: `Revenue (${currency})`,
            values: perDay(salesByDay.rows, days, "revenue_milliunits", (row) => row.currency === currency),
          },
        ],
        format: (value) => money(value, currency),
        axisFormat: (value) => (value / 1000).toLocaleString("en-US", { maximumFractionDigits: 2 }),
        integer: false,
      }),
    ),
    barChart({ title: "Refunds per day", labels: days, series: [{ name: "Refunds", values: perDay(salesByDay.rows, days, "refunds") }] }),
    lineChart({
      title: "Subscriptions per day",
      labels: days,
      series: [
        { name: "Active", values: perDay(subscriptions.rows, days, "active") },
        { name: "In trial", values: perDay(subscriptions.rows, days, "trial") },
        { name: "Grace or billing retry", values: troubled },
      ],
    }),
  );
  append(section, h("h2", { text: "Per day" }), charts);

  const products = new Map();
  for (const row of salesByProduct.rows) {
    const name = row.product_id || row.store_product_id || "unknown";
    const entry = products.get(name) || { name, purchases: 0, renewals: 0, units: 0, refunds: 0, revenue: new Map() };
    entry.purchases += row.purchases;
    entry.renewals += row.renewals;
    entry.units += row.units;
    entry.refunds += row.refunds;
    if (row.currency && row.revenue_milliunits !== null) {
      entry.revenue.set(row.currency, (entry.revenue.get(row.currency) || 0) + row.revenue_milliunits);
    }
    products.set(name, entry);
  }
  const productList = [...products.values()].sort((a, b) => b.purchases + b.renewals - (a.purchases + a.renewals));
  append(
    section,
    h("h2", { text: "Per product" }),
    productList.length
      ? horizontalBarChart({
          title: "Sales per product (purchases and renewals)",
          items: productList.map((entry) => ({ label: entry.name, value: entry.purchases + entry.renewals })),
        })
      : null,
    table(
      ["Product", "Purchases", "Renewals", "Units", "Refunds", "Revenue"],
      productList.map((entry) =>
        h(
          "tr",
          { dataset: { product: entry.name } },
          h("th", { scope: "row", text: entry.name }),
          h("td", { class: "number", text: count(entry.purchases) }),
          h("td", { class: "number", text: count(entry.renewals) }),
          h("td", { class: "number", text: count(entry.units) }),
          h("td", { class: "number", text: count(entry.refunds) }),
          h("td", { class: "number", text: [...entry.revenue].map(([currency, value]) => money(value, currency)).join(", ") || "—" }),
        ),
      ),
      { caption: "Sales per product in the range" },
    ),
    h(
      "p",
      { class: "actions" },
      csvLink("/v1/admin/reports/sales", { ...reportQuery, group_by: "day,product" }, "Sales as CSV"),
      csvLink("/v1/admin/reports/subscriptions", { ...reportQuery, group_by: "day,product" }, "Subscriptions as CSV"),
      csvLink("/v1/admin/reports/usage", { ...reportQuery, group_by: "app_version" }, "Purchases by app version as CSV"),
    ),
  );

  if (salesByDay.rows.length === 0 && subscriptions.rows.every((row) => !row.active && !row.trial)) {
    append(
      section,
      h("p", {
        class: "notice",
        text: `No ${range.environment} sales in this range. Choose another range or environment above.`,
      }),
    );
  }
}
