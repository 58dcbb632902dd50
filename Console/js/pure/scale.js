// The arithmetic of the console's charts (chart.js draws them): scales, ticks, and where every bar, point and span
// goes in a chart 640 units wide. Pure: positions are plain numbers, the SVG is chart.js's.

import { count, truncate } from "./format.js";

export const chartWidth = 640;
export const margin = { top: 12, right: 12, bottom: 30, left: 56 };

/** The smallest "round" number (1, 2, 2.5, 5 times a power of ten) at or above `value`, and a step that divides it
 *  into four ticks; with `integer`, ticks fall on whole numbers (five steps when four would not: 0, 1, ... 5 rather
 *  than 0, 1.25, ... 5, whose labels a count would round to 0, 1, 3, 4, 5). */
export function niceScale(value, integer = false) {
  if (integer && value <= 4) {
    const max = Math.max(1, Math.ceil(value));
    return { max, step: 1 };
  }
  if (!(value > 0)) return { max: 1, step: 0.25 };
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const factor = [1, 2, 2.5, 5, 10].find((candidate) => candidate * magnitude >= value) || 10;
  const max = factor * magnitude;
  const step = integer && !Number.isInteger(max / 4) ? max / 5 : max / 4;
  return { max, step };
}

/** The ticks of `scale`, from 0 to its max: each the round number its label shows (`0.15`, never the
 *  `0.15000000000000002` that adding steps up gives). */
export function ticks(scale) {
  const min = scale.min || 0;
  const steps = Math.round((scale.max - min) / scale.step);
  return Array.from({ length: steps + 1 }, (_, index) => Number((min + index * scale.step).toPrecision(12)) || 0);
}

/** A scale from below zero (`below`, the deepest negative stack, as a positive number) to `above`: one round step
 *  (that of the whole span), the ends the first ticks past each extreme; `{ min, max, step }`, `min` ≤ 0. */
export function divergingScale(above, below, integer = false) {
  const up = Math.max(0, above || 0);
  const down = Math.max(0, below || 0);
  const { step } = niceScale(up + down, integer);
  const max = Math.ceil(up / step - 1e-9) * step;
  const min = down > 0 ? -Math.ceil(down / step - 1e-9) * step : 0;
  return max === min ? { min: 0, max: step, step } : { min, max, step };
}

/** A day label (`2026-03-14`) as its month and day (`03-14`); other labels as they are. */
export function shortDay(label) {
  return /^\d{4}-\d{2}-\d{2}$/.test(label) ? label.slice(5) : label;
}

/** The plot's size inside the margins of a chart `height` high. */
export function plotArea(height) {
  return { width: chartWidth - margin.left - margin.right, height: height - margin.top - margin.bottom };
}

/** The width of one label's band when `labelCount` labels share the plot. */
export function bandWidth(plot, labelCount) {
  return plot.width / Math.max(1, labelCount);
}

/** The y of `value` on `scale` (its min, 0 unless said, at the plot's bottom, its max at its top). */
export function yOf(value, scale, plot) {
  const min = scale.min || 0;
  return margin.top + plot.height - (((value || 0) - min) / (scale.max - min)) * plot.height;
}

/** Whether `labels` are a monthly chart's: each the first day of a month (`2026-10-01`), but for the first, which
 *  may be the range's first day (a month counted from it); at least two months after the first label, as no run of
 *  days has. */
export function areMonths(labels) {
  const firstOfMonth = (label) => /^\d{4}-\d{2}-01$/.test(label);
  return labels.length >= 2 && labels.slice(1).every(firstOfMonth) && (labels.length >= 3 || firstOfMonth(labels[0]));
}

/** The axes: a grid line and figure per tick, and the labels shown under the plot (at most about 7, evenly spread):
 *  days as month and day (`03-14`), months as year and month (`2026-10`). */
export function axisLayout(labels, scale, plot) {
  const grid = ticks(scale).map((tick) => ({ tick, y: yOf(tick, scale, plot) }));
  const every = Math.max(1, Math.ceil(labels.length / 7));
  const band = bandWidth(plot, labels.length);
  const short = areMonths(labels) ? (label) => label.slice(0, 7) : shortDay;
  const shown = labels
    .map((label, index) => ({ text: short(label), x: margin.left + band * index + band / 2, index }))
    .filter((item) => item.index % every === 0);
  return { grid, labels: shown, labelY: margin.top + plot.height + 18 };
}

/** Each label's stacked total over `series` (`[{ name, values }]`, a missing value counting 0). */
export function stackTotals(labels, series) {
  return labels.map((_, index) => series.reduce((sum, item) => sum + (item.values[index] || 0), 0));
}

/** Stacked bars: one rectangle per positive value, stacked in the series' order within each label's band. With
 *  `negative`, negative values are drawn too, stacked down from zero (MRR's contraction and churn); otherwise they
 *  are left out. */
export function barLayout({ labels, series, integer = true, height = 240, negative = false }) {
  const plot = plotArea(height);
  const totals = stackTotals(labels, series);
  const positives = labels.map((_, index) => series.reduce((sum, item) => sum + Math.max(0, item.values[index] || 0), 0));
  const negatives = labels.map((_, index) => series.reduce((sum, item) => sum - Math.min(0, item.values[index] || 0), 0));
  const scale = negative
    ? divergingScale(Math.max(0, ...positives), Math.max(0, ...negatives), integer)
    : niceScale(Math.max(0, ...totals), integer);
  const span = scale.max - (scale.min || 0);
  const band = bandWidth(plot, labels.length);
  const width = Math.max(1, band * 0.72);
  const bars = [];
  labels.forEach((label, index) => {
    let above = 0;
    let below = 0;
    series.forEach((item, seriesIndex) => {
      const value = item.values[index] || 0;
      if (value === 0 || (value < 0 && !negative)) return;
      const x = margin.left + band * index + (band - width) / 2;
      const barHeight = Math.max(0.5, (Math.abs(value) / span) * plot.height);
      let y;
      if (value > 0) {
        above += value;
        y = yOf(above, scale, plot);
      } else {
        y = yOf(below, scale, plot);
        below += value;
      }
      bars.push({ label, name: item.name, seriesIndex, value, x, y, width, height: barHeight });
    });
  });
  return { plot, scale, bars, total: totals.reduce((sum, value) => sum + value, 0) };
}

/** What a bar chart says to a screen reader: its series, its days and its total. */
export function barDescription(labels, series, total, format = count) {
  const names = series.map((item) => item.name).join(" and ");
  return `${names} per day, ${labels[0] || ""} to ${labels[labels.length - 1] || ""}: ${format(total)} in all.`;
}

/** Lines: one point per label and series, at the middle of the label's band. */
export function lineLayout({ labels, series, integer = true, height = 240 }) {
  const plot = plotArea(height);
  const scale = niceScale(Math.max(0, ...series.flatMap((item) => item.values.map((value) => value || 0))), integer);
  const band = bandWidth(plot, labels.length);
  const lines = series.map((item, seriesIndex) => ({
    name: item.name,
    seriesIndex,
    points: labels.map((label, index) => ({
      label,
      value: item.values[index] || 0,
      x: margin.left + band * index + band / 2,
      y: yOf(item.values[index], scale, plot),
    })),
  }));
  return { plot, scale, lines, radius: labels.length > 60 ? 1.5 : 3 };
}

/** What a line chart says to a screen reader: each series' figure on the last label. */
export function lineDescription(labels, series, format = count) {
  const last = labels.length - 1;
  const figures = series.map((item) => `${item.name} ${format(item.values[last] || 0)}`).join(", ");
  return `${figures} on ${labels[last] || ""}.`;
}

/** Horizontal bars, one row per item (`[{ label, value }]`), on a whole-number scale of the largest value. */
export function horizontalBarLayout(items) {
  const rowHeight = 28;
  const labelWidth = 210;
  const scale = niceScale(Math.max(0, ...items.map((item) => item.value)), true);
  const barSpace = chartWidth - labelWidth - 90;
  const rows = items.map((item, index) => {
    const y = 4 + index * rowHeight;
    const barWidth = (item.value / scale.max) * barSpace;
    return {
      item,
      label: truncate(item.label, 28),
      y,
      barWidth,
      drawnWidth: Math.max(item.value > 0 ? 1 : 0, barWidth),
    };
  });
  return { rowHeight, labelWidth, height: Math.max(1, items.length) * rowHeight + 8, rows };
}

/** A timeline of spans (`rows` `[{ label, spans: [{ start, end, ... }] }]`, ISO instants) from the earliest start to
 *  the latest end or `now`, whichever is later; each span at least 2 units wide. */
export function timelineLayout(rows, now) {
  const rowHeight = 30;
  const labelWidth = 150;
  const times = rows.flatMap((row) => row.spans.flatMap((span) => [Date.parse(span.start), Date.parse(span.end)]));
  const start = times.length ? Math.min(...times) : now.getTime();
  const end = Math.max(...times, now.getTime());
  const span = Math.max(1, end - start);
  const plotWidth = chartWidth - labelWidth - margin.right;
  const x = (time) => labelWidth + ((time - start) / span) * plotWidth;
  const laidOut = rows.map((row, index) => ({
    label: truncate(row.label, 22),
    y: 6 + index * rowHeight,
    spans: row.spans.map((item) => ({
      item,
      x: x(Date.parse(item.start)),
      width: Math.max(2, x(Date.parse(item.end)) - x(Date.parse(item.start))),
    })),
  }));
  const height = Math.max(1, rows.length) * rowHeight + 30;
  return { rowHeight, labelWidth, height, rows: laidOut, nowX: x(now.getTime()), startDay: new Date(start).toISOString().slice(0, 10) };
}
