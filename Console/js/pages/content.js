// Content: each product's published pack versions (GET /v1/admin/content/{product_id}) and their downloads, distinct
// devices and re-downloads over a range (GET /v1/admin/reports/content, grouped by product and version).

import { ApiError, get } from "../api.js";
import { barChart } from "../chart.js";
import { h, append, pageHeading, replace, table } from "../dom.js";
import { bytes, count, dateTime, daysBetween } from "../pure/format.js";
import { readRange } from "../pure/range.js";
import { withQuery } from "../pure/query.js";
import { rangeForm } from "../range-form.js";

async function versionsOf(productID) {
  try {
    return (await get(`/v1/admin/content/${encodeURIComponent(productID)}`)).versions;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return [];
    throw error;
  }
}

export async function render(section, { query, navigate }) {
  const range = readRange(query, 90);
  // The most rows one answer may hold: a console range is never cut into pages.
  const reportQuery = { from: range.from, to: range.to, limit: 100000 };
  const [products, byVersion, byDay] = await Promise.all([
    get("/v1/admin/products"),
    get("/v1/admin/reports/content", { ...reportQuery, group_by: "product,version" }),
    get("/v1/admin/reports/content", { ...reportQuery, group_by: "day" }),
  ]);
  const versions = await Promise.all(
    products.products.map(async (product) => ({ product, versions: await versionsOf(product.product_id) })),
  );
  const withContent = versions.filter((entry) => entry.versions.length > 0);
  const figures = new Map(byVersion.rows.map((row) => [`${row.product_id}@${row.version}`, row]));
  const totals = byVersion.totals[0] || { downloads: 0, redownloads: 0, devices: 0, bytes_sent: 0 };
  const days = daysBetween(range.from, range.to);
  const perDay = new Map(byDay.rows.map((row) => [row.day, row.downloads]));

  replace(
    section,
    pageHeading("Content"),
    h("p", { class: "lede", text: `Content packs and their downloads, ${range.from} to ${range.to} (UTC days).` }),
    range.problem ? h("p", { class: "error", role: "alert", text: range.problem }) : null,
    rangeForm("/content", range, navigate, { withEnvironment: false }),
    h(
      "div",
      { class: "tiles" },
      [
        ["downloads", "File downloads", totals.downloads, count(totals.downloads)],
        ["redownloads", "Re-downloads", totals.redownloads, count(totals.redownloads)],
        ["devices", "Devices", totals.devices, count(totals.devices)],
        ["bytes_sent", "Sent", totals.bytes_sent, bytes(totals.bytes_sent)],
      ].map(([name, label, value, text]) =>
        h("div", { class: "tile", dataset: { figure: name, value } }, h("span", { class: "tile-label", text: label }), h("span", { class: "tile-value", text })),
      ),
    ),
    barChart({ title: "File downloads per day", labels: days, series: [{ name: "Downloads", values: days.map((day) => perDay.get(day) || 0) }] }),
  );

  if (withContent.length === 0) {
    append(section, h("p", { text: "No product has published content yet (shopkeeper content push)." }));
  }
  for (const { product, versions: list } of withContent) {
    append(
      section,
      h("h2", {}, h("code", { text: product.product_id })),
      table(
        ["Version", "Minimum app version", "Published", "Files", "Size", "Downloads", "Re-downloads", "Devices"],
        list.map((version) => {
          const row = figures.get(`${product.product_id}@${version.version}`) || {};
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
      ),
    );
  }
  append(
    section,
    h(
      "p",
      { class: "actions" },
      h("a", {
        class: "button small",
        download: "",
        href: withQuery("/v1/admin/reports/content", { ...reportQuery, group_by: "day,product,version", format: "csv" }),
        text: "Downloads as CSV",
      }),
    ),
  );
}
