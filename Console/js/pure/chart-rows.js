// The rows of the reports API as the Charts page draws them: each chart's labels (days, or the first days of the
// months a monthly chart's rows and cohorts start on), a figure per label, per group, and the CSV of exactly what a
// chart draws. Pure: shared by pure/charts.js (the daily charts) and pure/cohort-charts.js (the monthly ones).

import { addDays, daysBetween, isDay } from "./format.js";

/** The most groups a chart draws as their own series; the others are summed as "Other". */
export const maxGroups = 5;

/** The field of a report's row that names its group under each grouping (`group_by=product` answers `product_id`). */
const groupFields = { product: "product_id", store: "store", storefront: "storefront" };

/** The group a report row belongs to under `grouping` (`—` when the store did not say, e.g. no storefront). */
export function groupOf(row, grouping) {
  const value = row[groupFields[grouping] || grouping];
  return value === null || value === undefined || value === "" ? "—" : String(value);
}

/** The sum of `key` over `rows` per label, read from each row's `field` (`day`, `cohort`, `period_start`); a label
 *  without a row is 0. */
export function perLabel(rows, labels, key, field = "day") {
  const byLabel = new Map();
  for (const row of rows) byLabel.set(row[field], (byLabel.get(row[field]) || 0) + (row[key] || 0));
  return labels.map((label) => byLabel.get(label) || 0);
}

/** The labels of a range's rows by `period`: every day from `from` to `to`, or (`month`) the first day of each
 *  month the range touches; with `clipped`, the range's own first day for the first month (as churn's, refunds' and
 *  LTV's monthly rows start; the cohort charts' trial and start cohorts are whole months). */
export function periodLabels(from, to, period, clipped = true) {
  if (period !== "month") return daysBetween(from, to);
  if (!isDay(from) || !isDay(to) || from > to) return [];
  const labels = [clipped ? from : `${from.slice(0, 7)}-01`];
  let month = `${from.slice(0, 7)}-01`;
  for (;;) {
    month = `${addDays(month, 31).slice(0, 7)}-01`;
    if (month > to) return labels;
    labels.push(month);
  }
}

/**
 * Series of `key` per label for each group of `rows` under `grouping` (labels read from each row's `field`): the
 * `limit` largest (by their value on the last label, then over the range) as they are, the rest summed as "Other".
 * `[{ name, column, values }]`.
 */
export function groupSeries(rows, labels, grouping, key, limit = maxGroups, field = "day") {
  const groups = new Map();
  for (const row of rows) {
    const group = groupOf(row, grouping);
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(row);
  }
  const last = labels.length - 1;
  const series = [...groups].map(([group, groupRows]) => {
    const values = perLabel(groupRows, labels, key, field);
    return { name: group, column: group, values, total: values.reduce((sum, value) => sum + value, 0) };
  });
  series.sort((a, b) => b.values[last] - a.values[last] || b.total - a.total || (a.name < b.name ? -1 : 1));
  const kept = series.slice(0, limit);
  const rest = series.slice(limit);
  if (rest.length) {
    kept.push({
      name: `Other (${rest.length})`,
      column: "other",
      values: labels.map((_, index) => rest.reduce((sum, item) => sum + item.values[index], 0)),
    });
  }
  return kept.map(({ name, column, values }) => ({ name, column, values }));
}

/** The currencies a report's answer is in, in order; just `currency` when one reporting currency was asked for. */
export function reportCurrencies(answer, currency) {
  if (currency) return [currency];
  const seen = new Set([...answer.rows, ...(answer.totals || [])].map((row) => row.currency).filter(Boolean));
  return [...seen].sort();
}

/** The query every report of `state` shares. */
export function reportQuery(state) {
  return {
    from: state.range.from,
    to: state.range.to,
    environment: state.range.environment,
    currency: state.currency || undefined,
  };
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export function csvField(value) {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** CSV lines (arrays of fields) as text, each line ending with CRLF. */
export function csvText(lines) {
  return lines.map((line) => line.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** The CSV of exactly what a chart draws: a label column (`day`, or `cohort`, `period_start` for a monthly chart),
 *  then one per series (named by its `column`), a row per label; money in milliunits, as the reports API gives it. */
export function chartCsv(labels, series, labelColumn = "day") {
  const lines = [[labelColumn, ...series.map((item) => item.column)]];
  labels.forEach((label, index) => lines.push([label, ...series.map((item) => item.values[index] || 0)]));
  return csvText(lines);
}

/** The CSV of a drawn chart (an entry of a panel's `charts`): a table's own lines (`csv`), or its series by its own
 *  labels and label column (a daily chart's: `days`, `day`). */
export function drawnCsv(drawn, days) {
  if (drawn.kind === "table") return csvText(drawn.csv);
  return chartCsv(drawn.labels || days, drawn.series, drawn.labelColumn || "day");
}

/** A share as a percentage with two decimals (`part / whole`, 0 when `whole` is 0), for the rate charts. */
export function percentOf(part, whole) {
  return whole ? Math.round((part / whole) * 10000) / 100 : 0;
}

/** A percentage as the rate charts write it (`7.25%`). */
export function percentText(value) {
  return `${Number(value || 0).toFixed(2)}%`;
}
