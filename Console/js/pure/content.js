// The content page's arithmetic: its figures from the content report (GET /v1/admin/reports/content). Pure.

import { bytes, count } from "./format.js";

/** The report's query for `range`: the most rows one answer may hold, as a console range is never cut into pages. */
export function contentQuery(range) {
  return { from: range.from, to: range.to, limit: 100000 };
}

/** The range's totals (zeros when the report has none). */
export function contentTotals(report) {
  return report.totals[0] || { downloads: 0, redownloads: 0, devices: 0, bytes_sent: 0 };
}

/** The figure tiles of `totals`: `[name, label, raw value, text]`. */
export function contentTiles(totals) {
  return [
    ["downloads", "File downloads", totals.downloads, count(totals.downloads)],
    ["redownloads", "Re-downloads", totals.redownloads, count(totals.redownloads)],
    ["devices", "Devices", totals.devices, count(totals.devices)],
    ["bytes_sent", "Sent", totals.bytes_sent, bytes(totals.bytes_sent)],
  ];
}

/** Downloads per day, one per day of `days` (0 for a day the report does not list). */
export function downloadsPerDay(rows, days) {
  const perDay = new Map(rows.map((row) => [row.day, row.downloads]));
  return days.map((day) => perDay.get(day) || 0);
}

/** A function giving the report's row of a product's version (`{}` when it has none). */
export function versionFigures(rows) {
  const figures = new Map(rows.map((row) => [`${row.product_id}@${row.version}`, row]));
  return (productID, version) => figures.get(`${productID}@${version}`) || {};
}
