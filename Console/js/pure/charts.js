// The Charts page's arithmetic: which charts there are (one entry each in `charts`), what each asks the reports API,
// the series it draws from the answers, and the CSV of exactly those series. Pure: pages/charts.js fetches and draws,
// chart.js makes the SVG. A chart's CSV is written from the very series its SVG is drawn from, so the two never
// disagree.

import { chartCsv, csvField, drawnCsv, groupOf, groupSeries, maxGroups, reportCurrencies, reportQuery } from "./chart-rows.js";
import { cohortCharts } from "./cohort-charts.js";
import { count, isDay, money } from "./format.js";
import { moneyAxis, perDay } from "./overview.js";
import { readRange } from "./range.js";

export { chartCsv, csvField, drawnCsv, groupOf, groupSeries, maxGroups, reportCurrencies, reportQuery };

/** The dimensions a chart may be grouped by, as `[value, text]` (the empty value: not grouped). */
export const groupings = [
  ["", "Not grouped"],
  ["product", "Product"],
  ["store", "Store"],
  ["storefront", "Storefront"],
];

/** What a monthly chart's rows and cohorts are: months (the first day of each) or days. */
export const periods = [
  ["month", "Month"],
  ["day", "Day"],
];

/** What the revenue line shows: MRR or ARR (12 × MRR). */
export const measures = [
  ["mrr", "MRR"],
  ["arr", "ARR"],
];

/** The MRR movements as the report names them, in the order they are stacked (gains, then losses). */
export const movements = [
  ["new", "New"],
  ["reactivation", "Reactivation"],
  ["expansion", "Expansion"],
  ["contraction", "Contraction"],
  ["churn", "Churn"],
];

/** MRR's requests: grouped by day (the figures, movements and active subscriptions), and by day and the grouping when
 *  there is one (the MRR line per group: grouped movements would count a product change as churn and new). */
function mrrRequests(state) {
  const query = reportQuery(state);
  const requests = [{ key: "byDay", path: "/v1/admin/reports/mrr", query: { ...query, group_by: "day" } }];
  if (state.group) {
    requests.push({ key: "byGroup", path: "/v1/admin/reports/mrr", query: { ...query, group_by: `day,${state.group}` } });
  }
  return requests;
}

/** MRR's figures: MRR, ARR and active subscriptions on the range's `last` day (its row `lastRow`), and each movement
 *  summed over the range (`totals`). */
function mrrTiles(lastRow, totals, last, format) {
  return [
    { name: "mrr", label: `MRR on ${last}`, value: lastRow.mrr_milliunits || 0, text: format(lastRow.mrr_milliunits || 0) },
    { name: "arr", label: `ARR on ${last}`, value: lastRow.arr_milliunits || 0, text: format(lastRow.arr_milliunits || 0) },
    {
      name: "active_subscriptions",
      label: `Active subscriptions on ${last}`,
      value: lastRow.active_subscriptions || 0,
      text: count(lastRow.active_subscriptions || 0),
    },
    ...movements.map(([key, name]) => ({
      name: key,
      label: `${name} in the range`,
      value: totals[`${key}_milliunits`] || 0,
      text: format(totals[`${key}_milliunits`] || 0),
    })),
  ];
}

/** MRR's panels, one per currency: its figures on the range's last day and over the range, and three charts. */
function mrrPanels(answers, state, days) {
  const measure = state.measure === "arr" ? "arr" : "mrr";
  const measureName = measure.toUpperCase();
  const last = days[days.length - 1];
  return reportCurrencies(answers.byDay, state.currency).map((currency) => {
    const inCurrency = (row) => row.currency === currency;
    const rows = answers.byDay.rows.filter(inCurrency);
    const totals = (answers.byDay.totals || []).find(inCurrency) || {};
    const lastRow = rows.find((row) => row.day === last) || {};
    const format = (value) => money(value, currency);
    const moneyChart = { format, axisFormat: moneyAxis, integer: false };
    const grouped = state.group && answers.byGroup;
    const revenue = grouped
      ? groupSeries(answers.byGroup.rows.filter(inCurrency), days, state.group, `${measure}_milliunits`)
      : [{ name: measureName, column: `${measure}_milliunits`, values: perDay(rows, days, `${measure}_milliunits`) }];
    const by = grouped ? ` by ${state.group}` : "";
    return {
      currency,
      tiles: mrrTiles(lastRow, totals, last, format),
      charts: [
        {
          id: `${measure}${grouped ? `-by-${state.group}` : ""}`,
          kind: "line",
          title: `${measureName} per day${by} (${currency})`,
          series: revenue,
          legend: Boolean(grouped),
          ...moneyChart,
        },
        {
          id: "mrr-movements",
          kind: "bar",
          negative: true,
          title: `MRR movements per day (${currency})`,
          series: movements.map(([key, name]) => ({ name, column: `${key}_milliunits`, values: perDay(rows, days, `${key}_milliunits`) })),
          ...moneyChart,
        },
        {
          id: "active-subscriptions",
          kind: "line",
          title: `Active subscriptions per day (${currency})`,
          series: [{ name: "Active subscriptions", column: "active_subscriptions", values: perDay(rows, days, "active_subscriptions") }],
          format: count,
        },
      ],
    };
  });
}

/** Activity's request: the report of the range, per day (its figures are counts, in no currency). */
function activityRequests(state) {
  const { from, to, environment } = reportQuery(state);
  return [{ key: "activity", path: "/v1/admin/reports/activity", query: { from, to, environment } }];
}

/** Activity's one panel: active subscriptions and trials on the range's last day, new customers and new paying
 *  customers over the range, and two charts of counts per day. */
function activityPanels(answers, state, days) {
  const rows = answers.activity.rows || [];
  if (rows.length === 0) return [];
  const last = days[days.length - 1];
  const lastRow = rows.find((row) => row.day === last) || {};
  const totals = (answers.activity.totals || [])[0] || {};
  const tile = (name, label, value) => ({ name, label, value: value || 0, text: count(value || 0) });
  const series = (column, name) => ({ name, column, values: perDay(rows, days, column) });
  return [
    {
      currency: "",
      tiles: [
        tile("active_subscriptions", `Active subscriptions on ${last}`, lastRow.active_subscriptions),
        tile("active_trials", `Active trials on ${last}`, lastRow.active_trials),
        tile("new_customers", "New customers in the range", totals.new_customers),
        tile("new_paying_customers", "New paying customers in the range", totals.new_paying_customers),
      ],
      charts: [
        {
          id: "active",
          kind: "line",
          title: "Active subscriptions and trials per day",
          series: [series("active_subscriptions", "Active subscriptions"), series("active_trials", "Active trials")],
          legend: true,
          format: count,
        },
        {
          id: "new-customers",
          kind: "line",
          title: "New customers and new paying customers per day",
          series: [series("new_customers", "New customers"), series("new_paying_customers", "New paying customers")],
          legend: true,
          format: count,
        },
      ],
    },
  ];
}

/**
 * The charts, one entry each; a chart is added by adding its entry. `requests(state)` lists the reports it needs
 * (`{ key, path, query }`); `panels(answers, state, days)` turns the answers (by key) into panels, one per currency:
 * `{ currency, tiles: [{ name, label, value, text }], charts: [{ id, kind: "line" | "bar", title, series:
 * [{ name, column, values }], format, ... }] }`; a chart drawn over other labels than the range's days (a monthly
 * chart's months or cohorts) carries its own `labels` and `labelColumn` (its CSV's first column), and a table
 * (`kind: "table"`, the retention triangle) its `head`, `rows` of cells `{ text, title, value }` and `csv` lines.
 * `groupings`, `measures` and `periods` say which choices the page offers, `defaultDays` the range shown first.
 */
export const charts = [
  {
    id: "mrr",
    label: "MRR, ARR and movements",
    definition: "docs/charts.md#mrr-monthly-recurring-revenue",
    groupings: ["product", "store", "storefront"],
    measures: true,
    requests: mrrRequests,
    panels: mrrPanels,
  },
  {
    id: "activity",
    label: "Active subscriptions, trials and new customers",
    definition: "docs/charts.md#active-subscriptions-active-trials-new-customers-new-paying-customers",
    groupings: [],
    measures: false,
    requests: activityRequests,
    panels: activityPanels,
  },
  ...cohortCharts,
];

/** The chart named `id`, or the first. */
export function chartNamed(id) {
  return charts.find((chart) => chart.id === id) || charts[0];
}

/** What the page shows, from its route's query: the chart, the range (the chart's `defaultDays`, else 30), the
 *  reporting currency (empty: as paid), the grouping (one the chart offers, else none), the measure and, for a
 *  monthly chart (`periods`), whether its rows and cohorts are months or days; `problem` says what was wrong with
 *  the range. */
export function readChartState(query, end) {
  const chart = chartNamed(query.get("chart"));
  const range = readRange(query, chart.defaultDays || 30, end);
  const currency = /^[A-Z]{3}$/.test(query.get("currency") || "") ? query.get("currency") : "";
  const group = chart.groupings.includes(query.get("group")) ? query.get("group") : "";
  const measure = chart.measures && query.get("measure") === "arr" ? "arr" : "mrr";
  const period = chart.periods && query.get("period") === "day" ? "day" : "month";
  return { chart: chart.id, range, currency, group, measure, period };
}

/** The route query that shows `state` (and links to it). */
export function stateQuery(state) {
  return {
    chart: state.chart,
    from: state.range.from,
    to: state.range.to,
    environment: state.range.environment,
    currency: state.currency || undefined,
    group: state.group || undefined,
    measure: state.measure === "arr" ? "arr" : undefined,
    period: state.period === "day" ? "day" : undefined,
  };
}

/** The reporting currencies to choose from: as paid, then every currency of the loaded exchange rates (and their
 *  base), and the chosen one even when no rate names it. `[value, text]`. */
export function currencyOptions(rates, chosen) {
  const seen = new Set();
  for (const rate of rates) {
    if (rate.base) seen.add(rate.base);
    if (rate.currency) seen.add(rate.currency);
  }
  if (chosen) seen.add(chosen);
  return [["", "As paid (each currency)"], ...[...seen].sort().map((currency) => [currency, currency])];
}

/** The file a chart's CSV is saved as: `mrr-movements-USD-2026-03-01-2026-03-31.csv`. */
export function csvFileName(chartID, currency, range) {
  const safe = (text) => String(text).replace(/[^A-Za-z0-9_-]+/g, "_");
  const from = isDay(range.from) ? range.from : "";
  const to = isDay(range.to) ? range.to : "";
  return `${[chartID, currency].filter(Boolean).map(safe).join("-")}-${from}-${to}.csv`;
}
