// Content: each product's published pack versions (GET /v1/admin/content/{product_id}) and their downloads, distinct
// devices and re-downloads over a range (GET /v1/admin/reports/content, grouped by product and version). The figures
// are worked out in pure/content.js; this module fetches them and builds the page.

import { ApiError, get } from "../api.js";
import { barChart } from "../chart.js";
import { h, append, pageHeading, replace, table } from "../dom.js";
import { contentQuery, contentTiles, contentTotals, downloadsPerDay, versionFigures } from "../pure/content.js";
import { bytes, count, dateTime, daysBetween } from "../pure/format.js";
import { readRange } from "../pure/range.js";
import { withQuery } from "../pure/query.js";
import { rangeForm } from "../range-form.js";

// Data.

async function versionsOf(productID) {
  try {
    return (await get(`/v1/admin/content/${encodeURIComponent(productID)}`)).versions;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return [];
    throw error;
  }
}

/** The products, each with its published versions, and the range's report by version and by day. */
async function load(range) {
  const query = contentQuery(range);
  const [products, byVersion, byDay] = await Promise.all([
    get("/v1/admin/products"),
    get("/v1/admin/reports/content", { ...query, group_by: "product,version" }),
    get("/v1/admin/reports/content", { ...query, group_by: "day" }),
  ]);
  const versions = await Promise.all(
    products.products.map(async (product) => ({ product, versions: await versionsOf(product.product_id) })),
  );
  return { withContent: versions.filter((entry) => entry.versions.length > 0), byVersion, byDay };
}

// Markup.

function tilesView(totals) {
  return h(
    "div",
    { class: "tiles" },
    contentTiles(totals).map(([name, label, value, text]) =>
      h("div", { class: "tile", dataset: { figure: name, value } }, h("span", { class: "tile-label", text: label }), h("span", { class: "tile-value", text })),
    ),
  );
}

function versionsView(product, list, figuresOf) {
  return table(
    ["Version", "Minimum app version", "Published", "Files", "Size", "Downloads", "Re-downloads", "Devices"],
    list.map((version) => {
      const row = figuresOf(product.product_id, version.version);
      return h(
        "tr",
        { dataset: { product: product.product_id, version: version.version } },
        h("th", { scope: "row", text: version.version }),
        h("td", { text: version.min_app_version || "—" }),
        h("td", { text: dateTime(version.published_at) }),
        h("td", { class: "number", text: count(version.files.length) }),
        h("td", { class: "number", text: bytes(version.total_size) }),
        h("td", { class: "number downloads", text: count(row.downloads || 0) }),
        h("td", { class: "number", text: count(row.redownloads || 0) }),
        h("td", { class: "number", text: count(row.devices || 0) }),
      );
    }),
    { caption: `Versions of ${product.product_id}` },
  );
}

function csvLink(range) {
  const href = withQuery("/v1/admin/reports/content", { ...contentQuery(range), group_by: "day,product,version", format: "csv" });
  return h("p", { class: "actions" }, h("a", { class: "button small", download: "", href, text: "Downloads as CSV" }));
}

export async function render(section, { query, navigate }) {
  const range = readRange(query, 90);
  const { withContent, byVersion, byDay } = await load(range);
  const days = daysBetween(range.from, range.to);
  replace(
    section,
    pageHeading("Content"),
    h("p", { class: "lede", text: `Content packs and their downloads, ${range.from} to ${range.to} (UTC days).` }),
    range.problem ? h("p", { class: "error", role: "alert", text: range.problem }) : null,
    rangeForm("/content", range, navigate, { withEnvironment: false }),
    tilesView(contentTotals(byVersion)),
    barChart({ title: "File downloads per day", labels: days, series: [{ name: "Downloads", values: downloadsPerDay(byDay.rows, days) }] }),
  );
  if (withContent.length === 0) {
    append(section, h("p", { text: "No product has published content yet (shopkeeper content push)." }));
  }
  const figuresOf = versionFigures(byVersion.rows);
  for (const { product, versions } of withContent) {
    append(section, h("h2", {}, h("code", { text: product.product_id })), versionsView(product, versions, figuresOf));
  }
  append(section, csvLink(range));
}
