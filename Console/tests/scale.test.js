// The charts' arithmetic (js/pure/scale.js): scales, ticks and where bars, points and spans go. A chart is 640 wide;
// at the default height of 240 the plot is 572 wide and 198 high, its top at y 12 and its bottom at y 210.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  axisLayout,
  barDescription,
  barLayout,
  divergingScale,
  horizontalBarLayout,
  lineDescription,
  lineLayout,
  niceScale,
  plotArea,
  shortDay,
  stackTotals,
  ticks,
  timelineLayout,
  yOf,
} from "../js/pure/scale.js";

const close = (actual, expected, message) => assert.ok(Math.abs(actual - expected) < 1e-9, `${message || ""} ${actual} ≠ ${expected}`);

describe("niceScale", () => {
  it("rounds up to 1, 2, 2.5, 5 or 10 times a power of ten, in four steps", () => {
    assert.deepEqual(niceScale(7), { max: 10, step: 2.5 });
    assert.deepEqual(niceScale(10), { max: 10, step: 2.5 });
    assert.deepEqual(niceScale(11), { max: 20, step: 5 });
    assert.deepEqual(niceScale(2100), { max: 2500, step: 625 });
    assert.deepEqual(niceScale(4999), { max: 5000, step: 1250 });
    assert.deepEqual(niceScale(0.3), { max: 0.5, step: 0.125 });
  });
  it("gives an empty or negative chart a scale of 1", () => {
    assert.deepEqual(niceScale(0), { max: 1, step: 0.25 });
    assert.deepEqual(niceScale(-5), { max: 1, step: 0.25 });
    assert.deepEqual(niceScale(Number.NaN), { max: 1, step: 0.25 });
    assert.deepEqual(niceScale(0, true), { max: 1, step: 1 });
    assert.deepEqual(niceScale(-5, true), { max: 1, step: 1 });
  });
  it("counts small whole numbers one by one", () => {
    assert.deepEqual(niceScale(1, true), { max: 1, step: 1 });
    assert.deepEqual(niceScale(3, true), { max: 3, step: 1 });
    assert.deepEqual(niceScale(3.2, true), { max: 4, step: 1 });
  });
  it("keeps every tick of a count on a whole number", () => {
    for (let value = 1; value <= 5000; value += 1) {
      const scale = niceScale(value, true);
      assert.ok(scale.max >= value, `${value}: max ${scale.max}`);
      assert.ok(Number.isInteger(scale.step), `${value}: step ${scale.step}`);
      assert.ok(Number.isInteger(scale.max / scale.step), `${value}: ${scale.max} / ${scale.step}`);
    }
  });
});

describe("ticks", () => {
  it("runs from 0 to the max in steps", () => {
    assert.deepEqual(ticks({ max: 10, step: 2.5 }), [0, 2.5, 5, 7.5, 10]);
    assert.deepEqual(ticks({ max: 3, step: 1 }), [0, 1, 2, 3]);
  });
  it("has no rounding error from adding steps up", () => {
    assert.deepEqual(ticks(niceScale(0.17)), [0, 0.05, 0.1, 0.15, 0.2]);
  });
});

describe("axes", () => {
  it("shows a day label as month and day, and other labels whole", () => {
    assert.equal(shortDay("2026-03-14"), "03-14");
    assert.equal(shortDay("garden_monthly"), "garden_monthly");
  });
  it("puts each tick at its height and labels at most about seven bands", () => {
    const labels = Array.from({ length: 30 }, (_, index) => `d${index}`);
    const layout = axisLayout(labels, { max: 4, step: 1 }, plotArea(240));
    assert.deepEqual(
      layout.grid.map((line) => line.y),
      [210, 160.5, 111, 61.5, 12],
    );
    assert.deepEqual(
      layout.labels.map((label) => label.text),
      ["d0", "d5", "d10", "d15", "d20", "d25"],
    );
    close(layout.labels[1].x, 56 + (572 / 30) * 5.5);
    assert.equal(layout.labelY, 228);
  });
  it("shows a monthly chart's labels as year and month, a daily chart's as month and day", () => {
    const plot = plotArea(240);
    const months = ["2025-11-01", "2025-12-01", "2026-01-01"];
    assert.deepEqual(axisLayout(months, { max: 1, step: 1 }, plot).labels.map((label) => label.text), ["2025-11", "2025-12", "2026-01"]);
    const days = ["2026-01-31", "2026-02-01", "2026-02-02"];
    assert.deepEqual(axisLayout(days, { max: 1, step: 1 }, plot).labels.map((label) => label.text), ["01-31", "02-01", "02-02"]);
    assert.deepEqual(axisLayout(["2026-02-01"], { max: 1, step: 1 }, plot).labels.map((label) => label.text), ["02-01"]);
    // Months counted from a range's first day: the first row's month too.
    const clipped = ["2026-03-14", "2026-04-01", "2026-05-01"];
    assert.deepEqual(axisLayout(clipped, { max: 1, step: 1 }, plot).labels.map((label) => label.text), ["2026-03", "2026-04", "2026-05"]);
    assert.deepEqual(axisLayout(["2026-03-31", "2026-04-01"], { max: 1, step: 1 }, plot).labels.map((label) => label.text), ["03-31", "04-01"]);
  });
  it("labels every band of a short chart, and nothing of an empty one", () => {
    const plot = plotArea(240);
    assert.deepEqual(axisLayout(["a", "b", "c"], { max: 1, step: 1 }, plot).labels.map((label) => label.text), ["a", "b", "c"]);
    assert.deepEqual(axisLayout([], { max: 1, step: 1 }, plot).labels, []);
  });
});

describe("barLayout", () => {
  const series = [
    { name: "Purchases", values: [3, 1] },
    { name: "Renewals", values: [1, 0] },
  ];
  it("stacks each day's series from the bottom, in order", () => {
    const layout = barLayout({ labels: ["2026-03-01", "2026-03-02"], series });
    assert.deepEqual(layout.scale, { max: 4, step: 1 });
    assert.equal(layout.total, 5);
    assert.deepEqual(
      layout.bars.map((bar) => [bar.label, bar.name, bar.value, bar.y, bar.height]),
      [
        ["2026-03-01", "Purchases", 3, 61.5, 148.5],
        ["2026-03-01", "Renewals", 1, 12, 49.5],
        ["2026-03-02", "Purchases", 1, 160.5, 49.5],
      ],
    );
  });
  it("centres each bar in its day's band, 72% of its width", () => {
    const [first, , third] = barLayout({ labels: ["a", "b"], series }).bars;
    close(first.width, 286 * 0.72);
    close(first.x, 56 + (286 - 286 * 0.72) / 2);
    close(third.x, 56 + 286 + (286 - 286 * 0.72) / 2);
  });
  it("draws no bar for a zero, negative or missing value", () => {
    const layout = barLayout({ labels: ["a", "b", "c"], series: [{ name: "x", values: [0, -2] }] });
    assert.deepEqual(layout.bars, []);
    assert.deepEqual(layout.scale, { max: 1, step: 1 });
  });
  it("keeps a tiny bar visible (at least half a unit high)", () => {
    const layout = barLayout({ labels: ["a", "b"], series: [{ name: "x", values: [1, 10000] }] });
    assert.equal(layout.bars[0].height, 0.5);
  });
  it("lays out an empty chart without dividing by zero", () => {
    const layout = barLayout({ labels: [], series: [{ name: "x", values: [] }] });
    assert.deepEqual(layout.bars, []);
    assert.equal(layout.total, 0);
  });
  it("sums stacks with missing values as 0", () => {
    assert.deepEqual(stackTotals(["a", "b"], [{ values: [1] }, { values: [2, 3] }]), [3, 3]);
  });
  it("describes the chart with its first and last day and its total", () => {
    assert.equal(
      barDescription(["2026-03-01", "2026-03-02"], series, 5),
      "Purchases and Renewals per day, 2026-03-01 to 2026-03-02: 5 in all.",
    );
    assert.equal(barDescription([], [{ name: "Refunds" }], 0, (value) => `$${value}`), "Refunds per day,  to : $0 in all.");
  });
});

describe("lineLayout", () => {
  it("puts one point per day at the middle of its band, missing values on 0", () => {
    const layout = lineLayout({ labels: ["a", "b"], series: [{ name: "Active", values: [8, undefined] }] });
    assert.deepEqual(layout.scale, { max: 10, step: 2 });
    const [first, second] = layout.lines[0].points;
    assert.deepEqual([first.x, second.x], [56 + 143, 56 + 286 + 143]);
    close(first.y, 210 - 0.8 * 198);
    assert.equal(second.y, 210);
    assert.equal(second.value, 0);
    assert.equal(layout.radius, 3);
  });
  it("draws one point for one day, and smaller points past 60 days", () => {
    assert.equal(lineLayout({ labels: ["a"], series: [{ name: "x", values: [1] }] }).lines[0].points.length, 1);
    const labels = Array.from({ length: 61 }, (_, index) => String(index));
    assert.equal(lineLayout({ labels, series: [] }).radius, 1.5);
  });
  it("describes each series on the last day", () => {
    const series = [
      { name: "Active", values: [1, 2] },
      { name: "In trial", values: [3] },
    ];
    assert.equal(lineDescription(["a", "b"], series), "Active 2, In trial 0 on b.");
  });
});

describe("horizontalBarLayout", () => {
  it("gives each item a row and a bar in proportion to the scale", () => {
    const layout = horizontalBarLayout([
      { label: "garden_monthly", value: 30 },
      { label: "seeds", value: 0 },
    ]);
    assert.equal(layout.height, 2 * 28 + 8);
    assert.deepEqual(
      layout.rows.map((row) => [row.y, row.barWidth, row.drawnWidth]),
      [
        [4, (30 / 50) * 340, (30 / 50) * 340],
        [32, 0, 0],
      ],
    );
  });
  it("cuts a long label to 28 characters and keeps one row for no items", () => {
    const [row] = horizontalBarLayout([{ label: "a".repeat(40), value: 1 }]).rows;
    assert.equal(row.label, `${"a".repeat(27)}…`);
    assert.equal(horizontalBarLayout([]).height, 36);
  });
});

describe("timelineLayout", () => {
  const now = new Date("2026-03-31T00:00:00Z");
  it("runs from the earliest start to now, each span in proportion", () => {
    const layout = timelineLayout(
      [{ label: "garden_monthly", spans: [{ start: "2026-03-01T00:00:00Z", end: "2026-03-16T00:00:00Z" }] }],
      now,
    );
    assert.equal(layout.startDay, "2026-03-01");
    assert.equal(layout.height, 60);
    const [span] = layout.rows[0].spans;
    assert.equal(span.x, 150);
    close(span.width, (15 / 30) * 478);
    assert.equal(layout.nowX, 150 + 478);
  });
  it("ends at the latest end when it is after now", () => {
    const layout = timelineLayout([{ label: "x", spans: [{ start: "2026-03-01T00:00:00Z", end: "2026-04-30T00:00:00Z" }] }], now);
    close(layout.nowX, 150 + (30 / 60) * 478);
  });
  it("keeps a zero-length span 2 units wide and cuts a long label", () => {
    const at = "2026-03-31T00:00:00Z";
    const layout = timelineLayout([{ label: "a_very_long_product_identifier", spans: [{ start: at, end: at }] }], now);
    assert.equal(layout.rows[0].spans[0].width, 2);
    assert.equal(layout.rows[0].label, "a_very_long_product_i…");
  });
  it("starts an empty timeline now", () => {
    const layout = timelineLayout([], now);
    assert.equal(layout.startDay, "2026-03-31");
    assert.equal(layout.height, 60);
  });
});

describe("negative bars", () => {
  it("scales from below zero to above it with one round step", () => {
    assert.deepEqual(divergingScale(10000, 3000), { min: -5000, max: 10000, step: 5000 });
    assert.deepEqual(divergingScale(0, 0), { min: 0, max: 0.25, step: 0.25 });
    assert.deepEqual(ticks({ min: -5000, max: 10000, step: 5000 }), [-5000, 0, 5000, 10000]);
  });
  it("stacks negative values down from zero when asked, and leaves them out otherwise", () => {
    const series = [
      { name: "New", values: [3] },
      { name: "Contraction", values: [-1] },
      { name: "Churn", values: [-2] },
    ];
    const layout = barLayout({ labels: ["a"], series, negative: true, integer: true });
    assert.deepEqual(layout.scale, { min: -4, max: 4, step: 2 });
    const zero = yOf(0, layout.scale, layout.plot);
    const [gain, contraction, churn] = layout.bars;
    close(gain.y + gain.height, zero);
    close(contraction.y, zero);
    close(churn.y, contraction.y + contraction.height);
    assert.equal(churn.value, -2);
    assert.equal(barLayout({ labels: ["a"], series }).bars.length, 1);
  });
});
