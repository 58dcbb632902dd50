// The Charts page's choices, series and CSV from the reports API's answers (js/pure/charts.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  chartCsv,
  chartNamed,
  charts,
  csvField,
  csvFileName,
  currencyOptions,
  groupOf,
  groupSeries,
  readChartState,
  reportCurrencies,
  stateQuery,
} from "../js/pure/charts.js";

const days = ["2026-03-01", "2026-03-02", "2026-03-03"];
const mrr = charts.find((chart) => chart.id === "mrr");

function row(day, currency, figures = {}) {
  return {
    day,
    currency,
    mrr_milliunits: 0,
    arr_milliunits: 0,
    active_subscriptions: 0,
    new_milliunits: 0,
    expansion_milliunits: 0,
    contraction_milliunits: 0,
    churn_milliunits: 0,
    reactivation_milliunits: 0,
    ...figures,
  };
}

describe("the page's state", () => {
  it("reads the chart, range, currency, grouping and measure from the route's query", () => {
    const query = new URLSearchParams("chart=mrr&from=2026-03-01&to=2026-03-03&currency=USD&group=product&measure=arr");
    const state = readChartState(query, "2026-03-31");
    assert.deepEqual(state, {
      chart: "mrr",
      range: { from: "2026-03-01", to: "2026-03-03", environment: "production", problem: null },
      currency: "USD",
      group: "product",
      measure: "arr",
      period: "month",
    });
    assert.deepEqual(stateQuery(state), {
      chart: "mrr",
      from: "2026-03-01",
      to: "2026-03-03",
      environment: "production",
      currency: "USD",
      group: "product",
      measure: "arr",
      period: undefined,
    });
  });
  it("falls back to the first chart, 30 days, each currency as paid, no grouping and MRR", () => {
    const state = readChartState(new URLSearchParams("chart=nope&currency=usd&group=country&measure=x"), "2026-03-31");
    assert.equal(state.chart, charts[0].id);
    assert.deepEqual([state.range.from, state.range.to], ["2026-03-02", "2026-03-31"]);
    assert.deepEqual([state.currency, state.group, state.measure], ["", "", "mrr"]);
    assert.equal(stateQuery(state).currency, undefined);
    assert.equal(chartNamed("nope"), charts[0]);
  });
  it("gives every chart an id, a definition, requests and panels", () => {
    for (const chart of charts) {
      assert.match(chart.id, /^[a-z-]+$/);
      assert.ok(chart.definition.startsWith("docs/charts.md"));
      assert.equal(typeof chart.requests, "function");
      assert.equal(typeof chart.panels, "function");
    }
  });
});

describe("MRR's requests", () => {
  const state = readChartState(new URLSearchParams("from=2026-03-01&to=2026-03-03&currency=EUR"), "2026-03-31");
  it("asks by day only when not grouped, in the reporting currency", () => {
    assert.deepEqual(mrr.requests(state), [
      {
        key: "byDay",
        path: "/v1/admin/reports/mrr",
        query: { from: "2026-03-01", to: "2026-03-03", environment: "production", currency: "EUR", group_by: "day" },
      },
    ]);
  });
  it("asks by day and the grouping as well when grouped", () => {
    const requests = mrr.requests({ ...state, currency: "", group: "store" });
    assert.deepEqual(
      requests.map((request) => [request.key, request.query.group_by, request.query.currency]),
      [
        ["byDay", "day", undefined],
        ["byGroup", "day,store", undefined],
      ],
    );
  });
});

describe("MRR's panels", () => {
  const answer = {
    rows: [
      row("2026-03-01", "USD", { mrr_milliunits: 9990, arr_milliunits: 119880, active_subscriptions: 1, new_milliunits: 9990 }),
      row("2026-03-02", "EUR", { mrr_milliunits: 4990, arr_milliunits: 59880, active_subscriptions: 1, new_milliunits: 4990 }),
      row("2026-03-02", "USD", { mrr_milliunits: 9990, arr_milliunits: 119880, active_subscriptions: 1 }),
      row("2026-03-03", "USD", { churn_milliunits: -9990, reactivation_milliunits: 0 }),
    ],
    totals: [
      { currency: "EUR", new_milliunits: 4990, expansion_milliunits: 0, contraction_milliunits: 0, churn_milliunits: 0, reactivation_milliunits: 0 },
      { currency: "USD", new_milliunits: 9990, expansion_milliunits: 0, contraction_milliunits: 0, churn_milliunits: -9990, reactivation_milliunits: 0 },
    ],
  };
  it("draws one panel per currency paid, days without a row as 0", () => {
    const state = readChartState(new URLSearchParams("from=2026-03-01&to=2026-03-03"), "2026-03-31");
    const panels = mrr.panels({ byDay: answer }, state, days);
    assert.deepEqual(
      panels.map((panel) => panel.currency),
      ["EUR", "USD"],
    );
    const usd = panels[1];
    assert.deepEqual(
      usd.charts.map((chart) => [chart.id, chart.kind, chart.title]),
      [
        ["mrr", "line", "MRR per day (USD)"],
        ["mrr-movements", "bar", "MRR movements per day (USD)"],
        ["active-subscriptions", "line", "Active subscriptions per day (USD)"],
      ],
    );
    assert.deepEqual(usd.charts[0].series, [{ name: "MRR", column: "mrr_milliunits", values: [9990, 9990, 0] }]);
    const movementsChart = usd.charts[1];
    assert.equal(movementsChart.negative, true);
    assert.deepEqual(
      movementsChart.series.map((series) => [series.column, series.values]),
      [
        ["new_milliunits", [9990, 0, 0]],
        ["reactivation_milliunits", [0, 0, 0]],
        ["expansion_milliunits", [0, 0, 0]],
        ["contraction_milliunits", [0, 0, 0]],
        ["churn_milliunits", [0, 0, -9990]],
      ],
    );
    assert.deepEqual(usd.charts[2].series[0].values, [1, 1, 0]);
    assert.deepEqual(
      usd.tiles.map((tile) => [tile.name, tile.value]),
      [
        ["mrr", 0],
        ["arr", 0],
        ["active_subscriptions", 0],
        ["new", 9990],
        ["reactivation", 0],
        ["expansion", 0],
        ["contraction", 0],
        ["churn", -9990],
      ],
    );
    assert.deepEqual(panels[0].charts[0].series[0].values, [0, 4990, 0]);
  });
  it("draws ARR when asked, and one panel in the reporting currency even without rows", () => {
    const state = readChartState(new URLSearchParams("from=2026-03-01&to=2026-03-03&currency=JPY&measure=arr"), "2026-03-31");
    const panels = mrr.panels({ byDay: { rows: [], totals: [] } }, state, days);
    assert.equal(panels.length, 1);
    assert.equal(panels[0].currency, "JPY");
    assert.deepEqual(panels[0].charts[0].series, [{ name: "ARR", column: "arr_milliunits", values: [0, 0, 0] }]);
    assert.equal(panels[0].charts[0].title, "ARR per day (JPY)");
  });
  it("draws the revenue line per group when grouped, the movements from the ungrouped report", () => {
    const state = readChartState(new URLSearchParams("from=2026-03-01&to=2026-03-03&currency=USD&group=product"), "2026-03-31");
    const byGroup = {
      rows: [
        { ...row("2026-03-01", "USD", { mrr_milliunits: 1000 }), product_id: "basic" },
        { ...row("2026-03-03", "USD", { mrr_milliunits: 3000 }), product_id: "pro" },
      ],
    };
    const byDay = { rows: [row("2026-03-01", "USD", { mrr_milliunits: 1000, new_milliunits: 1000 })], totals: [] };
    const [panel] = mrr.panels({ byDay, byGroup }, state, days);
    assert.equal(panel.charts[0].title, "MRR per day by product (USD)");
    assert.deepEqual(panel.charts[0].series, [
      { name: "pro", column: "pro", values: [0, 0, 3000] },
      { name: "basic", column: "basic", values: [1000, 0, 0] },
    ]);
    assert.deepEqual(panel.charts[1].series[0].values, [1000, 0, 0]);
  });
});

describe("groups", () => {
  it("names a row's group, a missing value as —", () => {
    assert.equal(groupOf({ store: "stripe" }, "store"), "stripe");
    assert.equal(groupOf({ storefront: null }, "storefront"), "—");
    assert.equal(groupOf({ product_id: "pro" }, "product"), "pro");
  });
  it("keeps the largest groups on the last day and sums the rest as Other", () => {
    const rows = ["a", "b", "c", "d"].map((name, index) => ({ day: "2026-03-03", store: name, mrr_milliunits: index + 1 }));
    const series = groupSeries(rows, days, "store", "mrr_milliunits", 2);
    assert.deepEqual(
      series.map((item) => [item.name, item.column, item.values]),
      [
        ["d", "d", [0, 0, 4]],
        ["c", "c", [0, 0, 3]],
        ["Other (2)", "other", [0, 0, 3]],
      ],
    );
  });
});

describe("currencies", () => {
  it("lists the currencies paid, or just the reporting one", () => {
    assert.deepEqual(reportCurrencies({ rows: [{ currency: "USD" }], totals: [{ currency: "EUR" }] }, ""), ["EUR", "USD"]);
    assert.deepEqual(reportCurrencies({ rows: [{ currency: "USD" }], totals: [] }, "GBP"), ["GBP"]);
  });
  it("offers as paid, then the loaded rates' currencies and base, and the chosen one", () => {
    const rates = [
      { day: "2026-03-02", currency: "USD", base: "EUR" },
      { day: "2026-03-02", currency: "GBP", base: "EUR" },
    ];
    assert.deepEqual(currencyOptions(rates, "JPY"), [
      ["", "As paid (each currency)"],
      ["EUR", "EUR"],
      ["GBP", "GBP"],
      ["JPY", "JPY"],
      ["USD", "USD"],
    ]);
    assert.deepEqual(currencyOptions([], ""), [["", "As paid (each currency)"]]);
  });
});

describe("CSV", () => {
  it("writes a day column and one per series, exactly the values drawn", () => {
    const series = [
      { name: "New", column: "new_milliunits", values: [9990, 0] },
      { name: "Churn", column: "churn_milliunits", values: [0, -4990] },
    ];
    assert.equal(
      chartCsv(["2026-03-01", "2026-03-02"], series),
      "day,new_milliunits,churn_milliunits\r\n2026-03-01,9990,0\r\n2026-03-02,0,-4990\r\n",
    );
  });
  it("quotes a field holding a comma, a quote or a line break", () => {
    assert.equal(csvField('a "b", c'), '"a ""b"", c"');
    assert.equal(csvField("plain"), "plain");
    assert.equal(csvField(null), "");
  });
  it("names the file after the chart, currency and range", () => {
    assert.equal(csvFileName("mrr-movements", "USD", { from: "2026-03-01", to: "2026-03-31" }), "mrr-movements-USD-2026-03-01-2026-03-31.csv");
    assert.equal(csvFileName("mrr-by-product", "a/b", { from: "x", to: "2026-03-31" }), "mrr-by-product-a_b--2026-03-31.csv");
  });
});

describe("activity", () => {
  const activity = charts.find((chart) => chart.id === "activity");
  const state = { chart: "activity", range: { from: days[0], to: days[2], environment: "production" }, currency: "EUR" };

  it("asks the activity report of the range, in no currency", () => {
    assert.deepEqual(activity.requests(state), [
      {
        key: "activity",
        path: "/v1/admin/reports/activity",
        query: { from: days[0], to: days[2], environment: "production" },
      },
    ]);
  });
  it("draws counts per day, days without a row as 0, the range's totals as figures", () => {
    const answer = {
      rows: [
        { day: days[0], active_subscriptions: 3, active_trials: 1, new_customers: 4, new_paying_customers: 2 },
        { day: days[2], active_subscriptions: 5, active_trials: 0, new_customers: 1, new_paying_customers: 1 },
      ],
      totals: [{ new_customers: 5, new_paying_customers: 3 }],
    };
    const [panel, ...others] = activity.panels({ activity: answer }, state, days);
    assert.equal(others.length, 0);
    assert.deepEqual(
      panel.tiles.map(({ name, value }) => [name, value]),
      [
        ["active_subscriptions", 5],
        ["active_trials", 0],
        ["new_customers", 5],
        ["new_paying_customers", 3],
      ],
    );
    const active = panel.charts.find((chart) => chart.id === "active");
    assert.deepEqual(active.series.map((item) => item.values), [[3, 0, 5], [1, 0, 0]]);
    const csv = chartCsv(days, active.series);
    assert.equal(csv.split("\r\n")[0], "day,active_subscriptions,active_trials");
    assert.equal(csvFileName("active", panel.currency, state.range), `active-${days[0]}-${days[2]}.csv`);
  });
  it("draws nothing for a range without rows", () => {
    assert.deepEqual(activity.panels({ activity: { rows: [], totals: [] } }, state, days), []);
  });
});
