// Overview: sales, revenue, refunds, trials and subscriptions for a range of UTC days, from the reports API
// (GET /v1/admin/reports/sales and /subscriptions). Every figure is shown as a number (with its raw value in
// data-value) beside the charts, and each report can be downloaded as CSV. The figures are worked out in
// pure/overview.js; this module fetches them and builds the page.

import { get } from "../api.js";
import { barChart, horizontalBarChart, lineChart } from "../chart.js";
import { h, append, pageHeading, replace, table } from "../dom.js";
import { count, daysBetween } from "../pure/format.js";
import {
  csvDownloads,
  currencies,
  dailyCharts,
  isQuiet,
  reportQuery,
  revenueText,
  salesPerProduct,
  salesTiles,
  storesText,
  subscriptionTiles,
} from "../pure/overview.js";
import { withQuery } from "../pure/query.js";
import { readRange } from "../pure/range.js";
import { rangeForm } from "../range-form.js";

// Data.

/** The range's three reports: sales per day, sales per product and subscriptions per day. */
async function load(range) {
  const query = reportQuery(range);
  const [salesByDay, salesByProduct, subscriptions] = await Promise.all([
    get("/v1/admin/reports/sales", { ...query, group_by: "day" }),
    get("/v1/admin/reports/sales", { ...query, group_by: "product,store" }),
    get("/v1/admin/reports/subscriptions", { ...query, group_by: "day" }),
  ]);
  return { salesByDay, salesByProduct, subscriptions };
}

// Markup.

/** A figure tile: its name, its text, and the raw value a test or a script can read. */
function tileView({ name, label, value, text, extra }) {
  return h(
    "div",
    { class: "tile", dataset: { figure: name, value, ...extra } },
    h("span", { class: "tile-label", text: label }),
    h("span", { class: "tile-value", text }),
  );
}

function figuresView(range, { salesByDay, subscriptions }) {
  const tiles = [...salesTiles(salesByDay.totals), ...subscriptionTiles(subscriptions, range.to)];
  return h("div", { class: "tiles", id: "figures", "aria-label": "Figures of the range" }, tiles.map(tileView));
}

function chartsView(days, { salesByDay, subscriptions }) {
  const charts = dailyCharts(days, salesByDay.rows, subscriptions.rows, currencies(salesByDay.totals));
  return h(
    "div",
    { class: "charts" },
    charts.map(({ kind, ...chart }) => (kind === "line" ? lineChart : barChart)({ ...chart, labels: days })),
  );
}

function productsView(salesByProduct) {
  const products = salesPerProduct(salesByProduct.rows);
  const number = (value) => h("td", { class: "number", text: count(value) });
  return [
    products.length
      ? horizontalBarChart({
          title: "Sales per product (purchases and renewals)",
          items: products.map((entry) => ({ label: entry.name, value: entry.purchases + entry.renewals })),
        })
      : null,
    table(
      ["Product", "Stores", "Purchases", "Renewals", "Units", "Refunds", "Revenue"],
      products.map((entry) =>
        h(
          "tr",
          { dataset: { product: entry.name } },
          h("th", { scope: "row", text: entry.name }),
          h("td", { dataset: { stores: entry.stores.join(",") }, text: storesText(entry) }),
          [entry.purchases, entry.renewals, entry.units, entry.refunds].map(number),
          h("td", { class: "number", text: revenueText(entry) }),
        ),
      ),
      { caption: "Sales per product in the range" },
    ),
  ];
}

function csvLinks(range) {
  return h(
    "p",
    { class: "actions" },
    csvDownloads(reportQuery(range)).map(({ path, query, label }) =>
      h("a", { class: "button small", href: withQuery(path, { ...query, format: "csv" }), download: "", text: label }),
    ),
  );
}

export async function render(section, { query, navigate }) {
  const range = readRange(query);
  const reports = await load(range);
  const days = daysBetween(range.from, range.to);
  replace(
    section,
    pageHeading("Overview"),
    h("p", { class: "lede", text: `${range.from} to ${range.to} (UTC days), ${range.environment} purchases.` }),
    range.problem ? h("p", { class: "error", role: "alert", text: range.problem }) : null,
    rangeForm("/overview", range, navigate),
  );
  append(section, h("h2", { text: "Figures" }), figuresView(range, reports));
  append(section, h("h2", { text: "Per day" }), chartsView(days, reports));
  append(section, h("h2", { text: "Per product" }), productsView(reports.salesByProduct), csvLinks(range));
  if (isQuiet(reports.salesByDay.rows, reports.subscriptions.rows)) {
    const text = `No ${range.environment} sales in this range. Choose another range or environment above.`;
    append(section, h("p", { class: "notice", text }));
  }
}
