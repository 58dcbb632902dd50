// The overview's figures and series from the reports API's answers (js/pure/overview.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  csvDownloads,
  currencies,
  dailyCharts,
  isQuiet,
  moneyAxis,
  perDay,
  reportQuery,
  revenueText,
  salesPerProduct,
  salesTiles,
  storesText,
  subscriptionTiles,
  sum,
} from "../js/pure/overview.js";

const days = ["2026-03-01", "2026-03-02", "2026-03-03"];

describe("sums", () => {
  it("adds a key over rows, a missing value counting 0", () => {
    assert.equal(sum([{ units: 2 }, { units: 3 }, {}], "units"), 5);
    assert.equal(sum([], "units"), 0);
  });
  it("gives one value per day, summing a day's rows and filling days without rows with 0", () => {
    const rows = [
      { day: "2026-03-01", purchases: 2, currency: "USD" },
      { day: "2026-03-01", purchases: 1, currency: "EUR" },
      { day: "2026-03-03", purchases: 4, currency: "USD" },
      { day: "2026-02-28", purchases: 9, currency: "USD" },
    ];
    assert.deepEqual(perDay(rows, days, "purchases"), [3, 0, 4]);
    assert.deepEqual(perDay(rows, days, "purchases", (row) => row.currency === "EUR"), [1, 0, 0]);
    assert.deepEqual(perDay([], days, "purchases"), [0, 0, 0]);
  });
});

describe("tiles", () => {
  const totals = [
    { currency: "USD", purchases: 3, renewals: 1, units: 4, refunds: 1, revenue_milliunits: 11960, refunded_milliunits: 2990 },
    { currency: "EUR", purchases: 1, renewals: 0, units: 1, refunds: 0, revenue_milliunits: 3490, refunded_milliunits: 0 },
  ];
  it("sums counts over currencies and gives revenue per currency, refunded money only where there is some", () => {
    const tiles = salesTiles(totals);
    assert.deepEqual(
      tiles.map((tile) => [tile.name, tile.value, tile.text]),
      [
        ["purchases", 4, "4"],
        ["renewals", 1, "1"],
        ["units", 5, "5"],
        ["revenue", 11960, "USD\u00a011.96"],
        ["revenue", 3490, "EUR\u00a03.49"],
        ["refunds", 1, "1"],
        ["refunded", 2990, "USD\u00a02.99"],
      ],
    );
    assert.deepEqual(tiles[4].extra, { currency: "EUR" });
    assert.equal(tiles[4].label, "Revenue (EUR)");
  });
  it("shows one empty revenue tile when nothing was sold", () => {
    const tiles = salesTiles([]);
    assert.deepEqual(
      tiles.map((tile) => [tile.name, tile.value, tile.text]),
      [
        ["purchases", 0, "0"],
        ["renewals", 0, "0"],
        ["units", 0, "0"],
        ["revenue", "", "—"],
        ["refunds", 0, "0"],
      ],
    );
  });
  it("leaves the raw value empty when the revenue is unknown", () => {
    const [, , , revenue] = salesTiles([{ currency: "USD", revenue_milliunits: null }]);
    assert.deepEqual([revenue.value, revenue.text], ["", "—"]);
  });
  it("takes the subscriptions' totals and the last day's active and in-trial counts", () => {
    const subscriptions = {
      totals: [{ trials_started: 5, trials_converted: 2, new_subscriptions: 3, churned: 1 }],
      rows: [
        { day: "2026-03-02", active: 9, trial: 4 },
        { day: "2026-03-03", active: 7, trial: 1 },
      ],
    };
    assert.deepEqual(
      subscriptionTiles(subscriptions, "2026-03-03").map((tile) => [tile.name, tile.value]),
      [
        ["trials_started", 5],
        ["trials_converted", 2],
        ["new_subscriptions", 3],
        ["churned", 1],
        ["active_subscriptions", 7],
        ["subscriptions_in_trial", 1],
      ],
    );
    assert.equal(subscriptionTiles(subscriptions, "2026-03-03")[4].label, "Active subscriptions on 2026-03-03");
  });
  it("counts 0 for subscriptions without totals or without a row on the last day", () => {
    const tiles = subscriptionTiles({ totals: [], rows: [{ day: "2026-03-01", active: 3 }] }, "2026-03-03");
    assert.deepEqual(
      tiles.map((tile) => tile.value),
      [0, 0, 0, 0, 0, 0],
    );
  });
});

describe("dailyCharts", () => {
  const salesRows = [
    { day: "2026-03-01", currency: "USD", purchases: 2, renewals: 0, refunds: 0, revenue_milliunits: 5980 },
    { day: "2026-03-02", currency: "EUR", purchases: 1, renewals: 1, refunds: 1, revenue_milliunits: 6980 },
  ];
  const subscriptionRows = [
    { day: "2026-03-01", active: 2, trial: 1, grace_period: 1, billing_retry: 0 },
    { day: "2026-03-03", active: 3, trial: 0, grace_period: 1, billing_retry: 2 },
  ];
  const charts = dailyCharts(days, salesRows, subscriptionRows, ["USD", "EUR"]);
  it("draws sales, revenue per currency, refunds and subscriptions, in that order", () => {
    assert.deepEqual(
      charts.map((chart) => [chart.kind, chart.title]),
      [
        ["bar", "Sales per day"],
        ["bar", "Revenue per day (USD)"],
        ["bar", "Revenue per day (EUR)"],
        ["bar", "Refunds per day"],
        ["line", "Subscriptions per day"],
      ],
    );
  });
  it("gives each series its values per day", () => {
    assert.deepEqual(
      charts[0].series.map((series) => series.values),
      [
        [2, 1, 0],
        [0, 1, 0],
      ],
    );
    assert.deepEqual(charts[1].series[0].values, [5980, 0, 0]);
    assert.deepEqual(charts[2].series[0].values, [0, 6980, 0]);
    assert.deepEqual(charts[3].series[0].values, [0, 1, 0]);
  });
  it("adds grace period and billing retry into one line", () => {
    const [active, trial, troubled] = charts[4].series;
    assert.deepEqual(active.values, [2, 0, 3]);
    assert.deepEqual(trial.values, [1, 0, 0]);
    assert.deepEqual(troubled, { name: "Grace or billing retry", values: [1, 0, 3] });
  });
  it("writes revenue as money in titles and as plain units on the axis, on a fractional scale", () => {
    assert.equal(charts[2].format(6980), "EUR\u00a06.98");
    assert.equal(charts[2].axisFormat(2500), "2.5");
    assert.equal(charts[2].integer, false);
    assert.equal(moneyAxis(1234567), "1,234.57");
    assert.equal(moneyAxis(0), "0");
  });
});

describe("salesPerProduct", () => {
  it("merges a product's currencies and ranks products by purchases and renewals", () => {
    const products = salesPerProduct([
      { product_id: "seeds", purchases: 1, renewals: 0, units: 5, refunds: 0, currency: "USD", revenue_milliunits: 990 },
      { product_id: "garden", purchases: 1, renewals: 4, units: 4, refunds: 1, currency: "USD", revenue_milliunits: 11960 },
      { product_id: "seeds", purchases: 2, renewals: 0, units: 2, refunds: 0, currency: "EUR", revenue_milliunits: 1980 },
      { product_id: "seeds", purchases: 1, renewals: 0, units: 1, refunds: 0, currency: "USD", revenue_milliunits: 990 },
      { store_product_id: "com.demo.old", purchases: 0, renewals: 0, units: 0, refunds: 0, currency: null, revenue_milliunits: null },
    ]);
    assert.deepEqual(
      products.map((entry) => [entry.name, entry.purchases, entry.renewals, entry.units, entry.refunds]),
      [
        ["garden", 1, 4, 4, 1],
        ["seeds", 4, 0, 8, 0],
        ["com.demo.old", 0, 0, 0, 0],
      ],
    );
    assert.equal(revenueText(products[1]), "USD\u00a01.98, EUR\u00a01.98");
    assert.equal(revenueText(products[2]), "—");
  });
  it("lists the stores a product sold in, each once, by name", () => {
    const [garden] = salesPerProduct([
      { product_id: "garden", store: "app_store", purchases: 1, renewals: 0, units: 1, refunds: 0, currency: "USD", revenue_milliunits: 990 },
      { product_id: "garden", store: "stripe", purchases: 1, renewals: 0, units: 1, refunds: 0, currency: "EUR", revenue_milliunits: 2990 },
      { product_id: "garden", store: "stripe", purchases: 1, renewals: 0, units: 1, refunds: 0, currency: "USD", revenue_milliunits: 990 },
    ]);
    assert.deepEqual(garden.stores, ["app_store", "stripe"]);
    assert.equal(storesText(garden), "App Store, Stripe");
    assert.equal(revenueText(garden), "USD\u00a01.98, EUR\u00a02.99");
    assert.equal(storesText(salesPerProduct([{ product_id: "seeds", purchases: 0, renewals: 0, units: 0, refunds: 0 }])[0]), "—");
  });
  it("names a product with neither id unknown, and lists nothing for no rows", () => {
    assert.equal(salesPerProduct([{ purchases: 1, renewals: 0, units: 1, refunds: 0 }])[0].name, "unknown");
    assert.deepEqual(salesPerProduct([]), []);
  });
});

describe("the range's answers", () => {
  it("is quiet only with no sales and no subscription active or in trial", () => {
    assert.equal(isQuiet([], [{ active: 0, trial: 0 }]), true);
    assert.equal(isQuiet([], []), true);
    assert.equal(isQuiet([], [{ active: 0, trial: 1 }]), false);
    assert.equal(isQuiet([{ purchases: 0 }], []), false);
  });
  it("lists the currencies of the totals that have one", () => {
    assert.deepEqual(currencies([{ currency: "USD" }, { currency: null }, { currency: "EUR" }]), ["USD", "EUR"]);
  });
  it("asks the reports for the whole range at once, and offers three CSVs of it", () => {
    const query = reportQuery({ from: "2026-03-01", to: "2026-03-31", environment: "sandbox", problem: null });
    assert.deepEqual(query, { from: "2026-03-01", to: "2026-03-31", environment: "sandbox", limit: 100000 });
    assert.deepEqual(
      csvDownloads(query).map((download) => [download.path, download.query.group_by]),
      [
        ["/v1/admin/reports/sales", "day,product,store"],
        ["/v1/admin/reports/subscriptions", "day,product"],
        ["/v1/admin/reports/usage", "app_version"],
      ],
    );
  });
});
