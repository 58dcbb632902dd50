// The Charts page's monthly charts (GET /v1/admin/reports/{trial-conversion,retention,churn,refunds,ltv}): rows or
// cohorts by month (or by day), so each chart carries its own labels, the first days the API names them by, and its
// CSV's label column (`cohort`, `period_start`). A rate is drawn as a percentage beside the API's own figures, whose
// chart's CSV is exactly the API's columns. Pure: pure/charts.js lists these entries after the daily ones.

import { groupSeries, percentOf, percentText, perLabel, periodLabels, reportCurrencies, reportQuery } from "./chart-rows.js";
import { count, money } from "./format.js";
import { moneyAxis } from "./overview.js";

/** A monthly chart's range when the route names none: about a year. */
const defaultDays = 365;

/** What every monthly chart asks: its report by `period` (and the grouping, when there is one). */
function cohortRequest(key, report, state, withCurrency) {
  const { from, to, environment, currency } = reportQuery(state);
  const groupBy = [state.period === "day" ? "day" : "month", state.group].filter(Boolean).join(",");
  const query = { from, to, environment, group_by: groupBy };
  if (withCurrency && currency) query.currency = currency;
  return [{ key, path: `/v1/admin/reports/${report}`, query }];
}

/** The labels of `state`'s range by its period (`clipped`: see `periodLabels`). */
export function stateLabels(state, clipped = true) {
  return periodLabels(state.range.from, state.range.to, state.period === "day" ? "day" : "month", clipped);
}

/** A rate chart: each `[name, column, part, whole]` as a percentage per label of the rows' sums (summed over the
 *  groups, when grouped). */
export function rateSeries(rows, labels, field, rates) {
  return rates.map(([name, column, part, whole]) => {
    const parts = perLabel(rows, labels, part, field);
    const wholes = perLabel(rows, labels, whole, field);
    return { name, column, values: labels.map((_, index) => percentOf(parts[index], wholes[index])) };
  });
}

/** A series of the API's column `key` per label. */
function figure(rows, labels, field, key, name) {
  return { name, column: key, values: perLabel(rows, labels, key, field) };
}

/** The charts of one report's panel: the rates (`rates`), then the API's figures, counts (`counts`) and money
 *  (`amounts`, when the report has any); grouped, the first count (or `groupedKey`) per group instead of the counts.
 *  `id`s: `<chart>-rate`, `<chart>`, `<chart>-amounts`, `<chart>-by-<group>`. */
function reportCharts(spec, rows, labels, state, currency) {
  const { id, field, noun, rates, counts, amounts } = spec;
  const per = [noun, state.period === "day" ? "day" : "month"].filter(Boolean).join(" ");
  const inCurrency = currency ? ` (${currency})` : "";
  const common = { labels, labelColumn: field };
  const drawn = [];
  if (rates.length) {
    drawn.push({
      id: `${id}-rate`, kind: "line", title: `${spec.rateTitle} by ${per}${inCurrency}`, legend: rates.length > 1,
      series: rateSeries(rows, labels, field, rates), format: percentText, axisFormat: percentText, integer: false, ...common,
    });
  }
  if (state.group) {
    const [key, name] = spec.groupedKey || counts[0];
    const isMoney = key.endsWith("_milliunits");
    drawn.push({
      id: `${id}-by-${state.group}`, kind: "line", title: `${name} by ${per} and ${state.group}${isMoney ? inCurrency : ""}`,
      legend: true, series: groupSeries(rows, labels, state.group, key, spec.groupLimit, field),
      ...(isMoney ? { format: (value) => money(value, currency), axisFormat: moneyAxis, integer: false } : { format: count }), ...common,
    });
    return drawn;
  }
  drawn.push({
    id, kind: "line", title: `${spec.countTitle} by ${per}${spec.countsInCurrency ? inCurrency : ""}`, legend: counts.length > 1,
    series: counts.map(([key, name]) => figure(rows, labels, field, key, name)), format: count, ...common,
  });
  if (amounts && amounts.length) {
    drawn.push({
      id: `${id}-amounts`, kind: "line", title: `${spec.amountTitle} by ${per}${inCurrency}`, legend: amounts.length > 1,
      series: amounts.map(([key, name]) => figure(rows, labels, field, key, name)),
      format: (value) => money(value, currency), axisFormat: moneyAxis, integer: false, ...common,
    });
  }
  return drawn;
}

/** A report's panels: one per currency (one for counts in no currency), its figures over the range and its charts. */
function reportPanels(spec, answer, state) {
  const labels = stateLabels(state, !spec.wholeMonths);
  const currencies = spec.currency ? reportCurrencies(answer, state.currency) : [""];
  if (!spec.currency && (answer.rows || []).length === 0) return [];
  return currencies.map((currency) => {
    const inCurrency = (row) => !currency || row.currency === currency;
    const rows = (answer.rows || []).filter(inCurrency);
    const totals = (answer.totals || []).find(inCurrency) || {};
    return { currency, tiles: spec.tiles(totals, currency), charts: reportCharts(spec, rows, labels, state, currency) };
  });
}

/** A figure of the range: a count, money or a percentage. */
function tile(name, label, value, text) {
  return { name, label, value, text };
}

/** Trial cohorts are whole months (a range's first cohort is its first day's month), as the retention's. */
const trialConversion = {
  id: "trial-conversion", field: "cohort", noun: "trial", rateTitle: "Trial conversion rate", countTitle: "Trials", wholeMonths: true,
  rates: [["Converted", "conversion_percent", "converted", "trials"]],
  counts: [["trials", "Trials started"], ["converted", "Converted to paid"], ["pending", "Still in trial"]],
  tiles: (totals) => [
    tile("trials", "Trials started in the range", totals.trials || 0, count(totals.trials || 0)),
    tile("converted", "Converted to paid", totals.converted || 0, count(totals.converted || 0)),
    tile("conversion", "Conversion rate", percentOf(totals.converted, totals.trials), percentText(percentOf(totals.converted, totals.trials))),
  ],
};

const churn = {
  id: "churn", field: "period_start", noun: "", rateTitle: "Churn rate", countTitle: "Subscriptions", currency: true,
  amountTitle: "MRR", countsInCurrency: true,
  rates: [
    ["Subscriber churn", "subscriber_churn_percent", "churned", "active_at_start"],
    ["Revenue churn", "revenue_churn_percent", "churned_mrr_milliunits", "mrr_at_start_milliunits"],
  ],
  counts: [["active_at_start", "Active at the start"], ["churned", "Churned"]],
  amounts: [["mrr_at_start_milliunits", "MRR at the start"], ["churned_mrr_milliunits", "Churned MRR"]],
  tiles: (totals, currency) => [
    tile("churned", "Churned subscriptions in the range", totals.churned || 0, count(totals.churned || 0)),
    tile("churned_mrr", "Churned MRR in the range", totals.churned_mrr_milliunits || 0, money(totals.churned_mrr_milliunits || 0, currency)),
  ],
};

const refunds = {
  id: "refunds", field: "period_start", noun: "purchase", rateTitle: "Refund rate", countTitle: "Paid transactions",
  amountTitle: "Revenue", currency: true, countsInCurrency: true, groupedKey: ["refunds", "Refunds"],
  rates: [
    ["By transactions", "refund_percent", "refunds", "transactions"],
    ["By amount", "refunded_amount_percent", "refunded_milliunits", "revenue_milliunits"],
  ],
  counts: [["transactions", "Transactions"], ["refunds", "Refunded"]],
  amounts: [["revenue_milliunits", "Revenue"], ["refunded_milliunits", "Refunded"]],
  tiles: (totals, currency) => [
    tile("refund_rate", "Refund rate in the range", percentOf(totals.refunds, totals.transactions), percentText(percentOf(totals.refunds, totals.transactions))),
    tile("refunded", "Refunded in the range", totals.refunded_milliunits || 0, money(totals.refunded_milliunits || 0, currency)),
  ],
};

/** Realized LTV per customer is not a sum: grouped, every group keeps its own line (no "Other"). */
const ltv = {
  id: "ltv", field: "cohort", noun: "first purchase", rateTitle: "", countTitle: "Customers", amountTitle: "Realized LTV per customer",
  currency: true, groupedKey: ["ltv_milliunits", "Realized LTV per customer"], groupLimit: Infinity,
  rates: [],
  counts: [["customers", "Customers"]],
  amounts: [["ltv_milliunits", "Realized LTV per customer"]],
  tiles: (totals, currency) => {
    const perCustomer = totals.customers ? Math.round((totals.revenue_milliunits || 0) / totals.customers) : 0;
    return [
      tile("customers", "Customers of the range's cohorts", totals.customers || 0, count(totals.customers || 0)),
      tile("ltv", "Realized LTV per customer", perCustomer, money(perCustomer, currency)),
      tile("revenue", "Their revenue, refunds taken off", totals.revenue_milliunits || 0, money(totals.revenue_milliunits || 0, currency)),
    ];
  },
};

/** The retention triangle as a table: a row per cohort, a column per month since the start; each cell the share of
 *  the cohort that reached the month and still had paid access in it (`retained / reached`), its counts on hover.
 *  `{ head, rows: [{ cohort, subscriptions, cells: [{ period, text, title, value }] }] }`. */
export function retentionTable(rows, labels) {
  const periods = Math.max(-1, ...rows.map((row) => row.period)) + 1;
  const head = ["Cohort", "Subscriptions", ...Array.from({ length: periods }, (_, period) => `Month ${period}`)];
  const byCohort = new Map();
  for (const row of rows) {
    if (!byCohort.has(row.cohort)) byCohort.set(row.cohort, []);
    byCohort.get(row.cohort).push(row);
  }
  const cohorts = labels.filter((label) => byCohort.has(label));
  return {
    head,
    rows: cohorts.map((cohort) => {
      const cells = byCohort.get(cohort);
      const subscriptions = cells.reduce((most, row) => Math.max(most, row.subscriptions || 0), 0);
      return {
        cohort,
        subscriptions,
        cells: Array.from({ length: periods }, (_, period) => {
          const row = cells.find((item) => item.period === period);
          if (!row) return { period, text: "", title: "", value: null };
          const value = percentOf(row.retained, row.reached);
          const title = `${cohort}, month ${period}: ${count(row.retained)} of ${count(row.reached)} retained (${count(row.subscriptions)} in the cohort)`;
          return { period, text: percentText(value), title, value };
        }),
      };
    }),
  };
}

/** The retention CSV: the API's rows (cohort, period, subscriptions, reached, retained) in the table's order, the
 *  figures every cell is drawn from. */
export function retentionCsv(rows, labels) {
  const order = new Map(labels.map((label, index) => [label, index]));
  const sorted = [...rows].sort((a, b) => (order.get(a.cohort) ?? 0) - (order.get(b.cohort) ?? 0) || a.period - b.period);
  return [["cohort", "period", "subscriptions", "reached", "retained"], ...sorted.map((row) => [row.cohort, row.period, row.subscriptions, row.reached, row.retained])];
}

function retentionPanels(answers, state) {
  const rows = answers.retention.rows || [];
  if (rows.length === 0) return [];
  const labels = stateLabels(state, false);
  const table = retentionTable(rows, labels);
  const per = state.period === "day" ? "day" : "month";
  return [
    {
      currency: "",
      tiles: [tile("cohorts", "Cohorts", table.rows.length, count(table.rows.length))],
      charts: [{ id: "retention", kind: "table", title: `Subscription retention by start ${per}, per month since the start`, ...table, csv: retentionCsv(rows, labels) }],
    },
  ];
}

/** A monthly chart's entry for pure/charts.js's list. */
function entry(spec, label, definition, groupings, withCurrency) {
  return {
    id: spec.id,
    label,
    definition,
    groupings,
    measures: false,
    periods: true,
    defaultDays,
    requests: (state) => cohortRequest(spec.id, spec.id, state, withCurrency),
    panels: (answers, state) => reportPanels(spec, answers[spec.id], state),
  };
}

/** The monthly charts, in the order the page offers them. */
export const cohortCharts = [
  entry(trialConversion, "Trial conversion by trial cohort", "docs/charts.md#trial-conversion", [], false),
  {
    id: "retention",
    label: "Subscription retention by start cohort",
    definition: "docs/charts.md#subscription-retention-the-cohort-triangle",
    groupings: [],
    measures: false,
    periods: true,
    defaultDays,
    requests: (state) => cohortRequest("retention", "retention", state, false),
    panels: retentionPanels,
  },
  entry(churn, "Churn (subscriber and revenue)", "docs/charts.md#churn-subscriber-and-revenue", ["product", "store", "storefront"], true),
  entry(refunds, "Refund rate", "docs/charts.md#refund-rate", ["product", "store", "storefront"], true),
  entry(ltv, "Realized LTV per customer by cohort", "docs/charts.md#realized-ltv-per-customer", ["product", "store", "storefront"], true),
];
