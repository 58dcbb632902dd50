// The Charts page's monthly charts (js/pure/cohort-charts.js, js/pure/chart-rows.js): their labels, requests, rate
// and figure series, the retention triangle and the CSV of exactly what each draws.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { drawnCsv, percentOf, perLabel, periodLabels } from "../js/pure/chart-rows.js";
import { charts, readChartState, stateQuery } from "../js/pure/charts.js";
import { rateSeries, retentionCsv, retentionTable } from "../js/pure/cohort-charts.js";

const chart = (id) => charts.find((item) => item.id === id);
const state = (query) => readChartState(new URLSearchParams(query), "2026-03-31");

describe("a monthly chart's labels", () => {
  it("are the range's first day, then the first day of each later month it touches", () => {
    assert.deepEqual(periodLabels("2025-11-15", "2026-02-01", "month"), ["2025-11-15", "2025-12-01", "2026-01-01", "2026-02-01"]);
    assert.deepEqual(periodLabels("2026-01-01", "2026-01-31", "month"), ["2026-01-01"]);
    assert.deepEqual(periodLabels("2024-01-31", "2024-03-01", "month"), ["2024-01-31", "2024-02-01", "2024-03-01"]);
    assert.deepEqual(periodLabels("2026-02-01", "2026-01-01", "month"), []);
  });
  it("start with the first day's whole month for the cohort charts", () => {
    assert.deepEqual(periodLabels("2025-11-15", "2026-01-01", "month", false), ["2025-11-01", "2025-12-01", "2026-01-01"]);
  });
  it("are every day of the range by day", () => {
    assert.deepEqual(periodLabels("2026-01-30", "2026-02-01", "day"), ["2026-01-30", "2026-01-31", "2026-02-01"]);
  });
  it("sums a figure per label from the row's own label field, a label without a row as 0", () => {
    const rows = [
      { cohort: "2026-01-01", trials: 3 },
      { cohort: "2026-01-01", trials: 2 },
      { cohort: "2026-03-01", trials: 1 },
    ];
    assert.deepEqual(perLabel(rows, ["2026-01-01", "2026-02-01", "2026-03-01"], "trials", "cohort"), [5, 0, 1]);
  });
});

describe("a monthly chart's state and requests", () => {
  it("shows about a year by month by default, and by day when asked", () => {
    const byMonth = state("chart=ltv");
    assert.deepEqual([byMonth.range.from, byMonth.range.to, byMonth.period], ["2025-04-01", "2026-03-31", "month"]);
    assert.equal(stateQuery(byMonth).period, undefined);
    const byDay = state("chart=ltv&period=day&from=2026-03-01&to=2026-03-31");
    assert.equal(stateQuery(byDay).period, "day");
    assert.equal(state("chart=mrr&period=day").period, "month", "MRR has no periods");
  });
  it("asks its report by month (and the grouping), with the currency where the API converts", () => {
    const ltv = state("chart=ltv&from=2026-01-01&to=2026-03-31&currency=EUR&group=product");
    assert.deepEqual(chart("ltv").requests(ltv), [
      { key: "ltv", path: "/v1/admin/reports/ltv", query: { from: "2026-01-01", to: "2026-03-31", environment: "production", group_by: "month,product", currency: "EUR" } },
    ]);
    const trials = state("chart=trial-conversion&from=2026-01-01&to=2026-03-31&currency=EUR&period=day");
    assert.deepEqual(chart("trial-conversion").requests(trials)[0].query, {
      from: "2026-01-01",
      to: "2026-03-31",
      environment: "production",
      group_by: "day",
    });
    assert.equal(chart("retention").requests(state("chart=retention"))[0].path, "/v1/admin/reports/retention");
  });
});

describe("rates", () => {
  it("are percentages with two decimals of the rows' sums, 0 of nothing", () => {
    assert.equal(percentOf(1, 3), 33.33);
    assert.equal(percentOf(5, 0), 0);
    const rows = [
      { period_start: "2026-01-01", churned: 1, active_at_start: 4, product_id: "a" },
      { period_start: "2026-01-01", churned: 1, active_at_start: 4, product_id: "b" },
    ];
    assert.deepEqual(rateSeries(rows, ["2026-01-01", "2026-02-01"], "period_start", [["Churn", "churn_percent", "churned", "active_at_start"]]), [
      { name: "Churn", column: "churn_percent", values: [25, 0] },
    ]);
  });
});

describe("the monthly charts' panels", () => {
  const churnAnswer = {
    rows: [
      { period_start: "2026-01-01", currency: "EUR", active_at_start: 200, churned: 14, mrr_at_start_milliunits: 1108000, churned_mrr_milliunits: 74860 },
      { period_start: "2026-02-01", currency: "EUR", active_at_start: 190, churned: 10, mrr_at_start_milliunits: 1000000, churned_mrr_milliunits: 50000 },
    ],
    totals: [{ currency: "EUR", churned: 24, churned_mrr_milliunits: 124860 }],
  };
  it("draw churn's rates and the API's figures over the months, each CSV by period_start", () => {
    const shown = state("chart=churn&from=2026-01-01&to=2026-03-31&currency=EUR");
    const [panel] = chart("churn").panels({ churn: churnAnswer }, shown);
    assert.equal(panel.currency, "EUR");
    assert.deepEqual(panel.charts.map((drawn) => drawn.id), ["churn-rate", "churn", "churn-amounts"]);
    const [rate, counts, amounts] = panel.charts;
    assert.deepEqual(rate.labels, ["2026-01-01", "2026-02-01", "2026-03-01"]);
    assert.deepEqual(rate.series[0].values, [7, 5.26, 0]);
    assert.deepEqual(rate.series[1].values, [6.76, 5, 0]);
    assert.equal(
      drawnCsv(counts, []),
      "period_start,active_at_start,churned\r\n2026-01-01,200,14\r\n2026-02-01,190,10\r\n2026-03-01,0,0\r\n",
    );
    assert.equal(drawnCsv(amounts, []).split("\r\n")[1], "2026-01-01,1108000,74860");
    assert.equal(panel.tiles.find((item) => item.name === "churned").value, 24);
  });
  it("draw LTV per group without summing groups as Other", () => {
    const rows = ["a", "b", "c", "d", "e", "f"].map((product, index) => ({ cohort: "2026-01-01", product_id: product, currency: "USD", customers: 1, revenue_milliunits: 1000 * index, refunded_milliunits: 0, ltv_milliunits: 1000 * index }));
    const [panel] = chart("ltv").panels({ ltv: { rows, totals: [{ currency: "USD", customers: 6, revenue_milliunits: 15000 }] } }, state("chart=ltv&from=2026-01-01&to=2026-01-31&group=product"));
    const [grouped] = panel.charts;
    assert.equal(grouped.id, "ltv-by-product");
    assert.equal(grouped.series.length, 6);
    assert.ok(!grouped.series.some((item) => item.column === "other"));
    assert.equal(panel.tiles.find((item) => item.name === "ltv").value, 2500);
  });
  it("draw trial conversion in no currency, and nothing for a range without trials", () => {
    const answer = { rows: [{ cohort: "2026-01-01", trials: 120, converted: 54, pending: 0 }], totals: [{ trials: 120, converted: 54, pending: 0 }] };
    const shown = state("chart=trial-conversion&from=2026-01-01&to=2026-02-28");
    const [panel] = chart("trial-conversion").panels({ "trial-conversion": answer }, shown);
    assert.equal(panel.currency, "");
    assert.deepEqual(panel.charts[0].series[0].values, [45, 0]);
    assert.equal(drawnCsv(panel.charts[1], []), "cohort,trials,converted,pending\r\n2026-01-01,120,54,0\r\n2026-02-01,0,0,0\r\n");
    assert.deepEqual(chart("trial-conversion").panels({ "trial-conversion": { rows: [], totals: [] } }, shown), []);
  });
});

describe("the retention triangle", () => {
  const rows = [
    { cohort: "2026-02-01", period: 0, subscriptions: 64, reached: 64, retained: 64 },
    { cohort: "2026-01-01", period: 1, subscriptions: 80, reached: 52, retained: 41 },
    { cohort: "2026-01-01", period: 0, subscriptions: 80, reached: 80, retained: 80 },
  ];
  const labels = ["2026-01-01", "2026-02-01"];
  it("has a row per cohort and a column per month since the start, later cohorts shorter", () => {
    const table = retentionTable(rows, labels);
    assert.deepEqual(table.head, ["Cohort", "Subscriptions", "Month 0", "Month 1"]);
    assert.deepEqual(table.rows.map((row) => [row.cohort, row.subscriptions, row.cells.map((cell) => cell.text)]), [
      ["2026-01-01", 80, ["100.00%", "78.85%"]],
      ["2026-02-01", 64, ["100.00%", ""]],
    ]);
    assert.equal(table.rows[0].cells[1].title, "2026-01-01, month 1: 41 of 52 retained (80 in the cohort)");
  });
  it("exports the API's rows the cells are drawn from, in the table's order", () => {
    assert.equal(
      drawnCsv({ kind: "table", csv: retentionCsv(rows, labels) }, []),
      "cohort,period,subscriptions,reached,retained\r\n2026-01-01,0,80,80,80\r\n2026-01-01,1,80,52,41\r\n2026-02-01,0,64,64,64\r\n",
    );
  });
  it("is one panel in no currency, none without rows", () => {
    const shown = state("chart=retention&from=2026-01-01&to=2026-02-28");
    const [panel] = chart("retention").panels({ retention: { rows } }, shown);
    assert.equal(panel.charts[0].kind, "table");
    assert.deepEqual(chart("retention").panels({ retention: { rows: [] } }, shown), []);
  });
});

describe("definitions", () => {
  it("link every chart to a heading of docs/charts.md", () => {
    const doc = readFileSync(new URL("../../docs/charts.md", import.meta.url), "utf8");
    const anchors = new Set(
      [...doc.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => heading.toLowerCase().replace(/[^a-z0-9 -]/g, "").replaceAll(" ", "-")),
    );
    for (const { id, definition } of charts) assert.ok(anchors.has(definition.split("#")[1]), `${id}: ${definition}`);
  });
});
