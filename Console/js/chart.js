// Charts drawn as SVG by the console itself (no library): bars per day (stacked series), lines per day, and
// horizontal bars per item. Each chart scales with its box (viewBox, width 100%), names itself for screen readers,
// and gives every bar or point a <title> with its figure; the pages show the same figures as numbers and tables.
// Colours come from the stylesheet (series-0, series-1, ...), so the charts follow light and dark mode.

import { h, s } from "./dom.js";
import { count } from "./format.js";

const width = 640;
const margin = { top: 12, right: 12, bottom: 30, left: 56 };

let chartCounter = 0;

/** The smallest "round" number (1, 2, 2.5, 5 times a power of ten) at or above `value`, and a step that divides it
 *  into about four ticks; with `integer`, ticks fall on whole numbers. */
export function niceScale(value, integer = false) {
  if (integer && value <= 4) {
    const max = Math.max(1, Math.ceil(value));
    return { max, step: 1 };
  }
  if (!(value > 0)) return { max: 1, step: 0.25 };
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 2.5, 5, 10]) {
    const max = factor * magnitude;
    if (max >= value) return { max, step: max / 4 };
  }
  return { max: 10 * magnitude, step: 2.5 * magnitude };
}

function shortDay(label) {
  return /^\d{4}-\d{2}-\d{2}$/.test(label) ? label.slice(5) : label;
}

function frame(title, description, height, body, legend, className = "") {
  const id = `chart-${++chartCounter}`;
  return h(
    "figure",
    { class: `chart ${className}`.trim() },
    h("figcaption", { id: `${id}-title`, text: title }),
    s(
      "svg",
      {
        viewBox: `0 0 ${width} ${height}`,
        role: "img",
        "aria-labelledby": `${id}-title ${id}-description`,
        preserveAspectRatio: "xMidYMid meet",
      },
      s("desc", { id: `${id}-description`, text: description }),
      body,
    ),
    legend,
  );
}

function legendOf(series) {
  if (series.length < 2) return null;
  return h(
    "ul",
    { class: "legend" },
    series.map((item, index) => h("li", {}, h("span", { class: `swatch series-${index}`, "aria-hidden": "true" }), item.name)),
  );
}

function axes(labels, scale, plotHeight, format) {
  const plotWidth = width - margin.left - margin.right;
  const parts = [];
  for (let tick = 0; tick <= scale.max + scale.step / 2; tick += scale.step) {
    const y = margin.top + plotHeight - (tick / scale.max) * plotHeight;
    parts.push(
      s("line", { class: "grid", x1: margin.left, x2: margin.left + plotWidth, y1: y, y2: y }),
      s("text", { class: "axis", x: margin.left - 6, y: y + 4, "text-anchor": "end", text: format(tick) }),
    );
  }
  const every = Math.max(1, Math.ceil(labels.length / 7));
  const band = plotWidth / Math.max(1, labels.length);
  labels.forEach((label, index) => {
    if (index % every !== 0) return;
    parts.push(
      s("text", {
        class: "axis",
        x: margin.left + band * index + band / 2,
        y: margin.top + plotHeight + 18,
        "text-anchor": "middle",
        text: shortDay(label),
      }),
    );
  });
  return parts;
}

/**
 * Stacked bars, one per label. `series`: `[{ name, values }]`, each value a number per label (missing: 0).
 * `format` writes the bars' titles, `axisFormat` the axis (short: money without its currency); `integer` keeps the
 * ticks on whole numbers (counts).
 */
export function barChart({ title, labels, series, format = count, axisFormat = format, integer = true, height = 240 }) {
  const plotHeight = height - margin.top - margin.bottom;
  const plotWidth = width - margin.left - margin.right;
  const totals = labels.map((_, index) => series.reduce((sum, item) => sum + (item.values[index] || 0), 0));
  const scale = niceScale(Math.max(0, ...totals), integer);
  const band = plotWidth / Math.max(1, labels.length);
  const barWidth = Math.max(1, band * 0.72);
  const bars = [];
  labels.forEach((label, index) => {
    let stacked = 0;
    series.forEach((item, seriesIndex) => {
      const value = item.values[index] || 0;
      if (value <= 0) return;
      const barHeight = (value / scale.max) * plotHeight;
      const y = margin.top + plotHeight - ((stacked + value) / scale.max) * plotHeight;
      stacked += value;
      bars.push(
        s(
          "rect",
          {
            class: `bar series-${seriesIndex}`,
            x: (margin.left + band * index + (band - barWidth) / 2).toFixed(2),
            y: y.toFixed(2),
            width: barWidth.toFixed(2),
            height: Math.max(0.5, barHeight).toFixed(2),
          },
          s("title", { text: `${label}: ${item.name} ${format(value)}` }),
        ),
      );
    });
  });
  const total = totals.reduce((sum, value) => sum + value, 0);
  const description = `${series.map((item) => item.name).join(" and ")} per day, ${labels[0] || ""} to ${
    labels[labels.length - 1] || ""
  }: ${format(total)} in all.`;
  return frame(title, description, height, [...axes(labels, scale, plotHeight, axisFormat), ...bars], legendOf(series));
}

/** Lines, one point per label. `series`: `[{ name, values }]`. */
export function lineChart({ title, labels, series, format = count, integer = true, height = 240 }) {
  const plotHeight = height - margin.top - margin.bottom;
  const plotWidth = width - margin.left - margin.right;
  const scale = niceScale(Math.max(0, ...series.flatMap((item) => item.values.map((value) => value || 0))), integer);
  const band = plotWidth / Math.max(1, labels.length);
  const x = (index) => margin.left + band * index + band / 2;
  const y = (value) => margin.top + plotHeight - ((value || 0) / scale.max) * plotHeight;
  const lines = series.map((item, seriesIndex) =>
    s(
      "g",
      { class: `line series-${seriesIndex}` },
      s("polyline", {
        points: labels.map((_, index) => `${x(index).toFixed(2)},${y(item.values[index]).toFixed(2)}`).join(" "),
      }),
      labels.map((label, index) =>
        s(
          "circle",
          { cx: x(index).toFixed(2), cy: y(item.values[index]).toFixed(2), r: labels.length > 60 ? 1.5 : 3 },
          s("title", { text: `${label}: ${item.name} ${format(item.values[index] || 0)}` }),
        ),
      ),
    ),
  );
  const last = labels.length - 1;
  const description = `${series
    .map((item) => `${item.name} ${format(item.values[last] || 0)}`)
    .join(", ")} on ${labels[last] || ""}.`;
  return frame(title, description, height, [...axes(labels, scale, plotHeight, format), ...lines], legendOf(series));
}

/** Horizontal bars, one per item: `items` `[{ label, value }]`, largest first. */
export function horizontalBarChart({ title, items, format = count }) {
  const rowHeight = 28;
  const labelWidth = 210;
  const height = Math.max(1, items.length) * rowHeight + 8;
  const scale = niceScale(Math.max(0, ...items.map((item) => item.value)), true);
  const barSpace = width - labelWidth - 90;
  const rows = items.map((item, index) => {
    const y = 4 + index * rowHeight;
    const barWidth = (item.value / scale.max) * barSpace;
    const label = item.label.length > 28 ? `${item.label.slice(0, 27)}…` : item.label;
    return s(
      "g",
      {},
      s("text", { class: "axis label", x: labelWidth - 8, y: y + rowHeight / 2 + 4, "text-anchor": "end", text: label }),
      s(
        "rect",
        {
          class: "bar series-0",
          x: labelWidth,
          y: y + 4,
          width: Math.max(item.value > 0 ? 1 : 0, barWidth).toFixed(2),
          height: rowHeight - 8,
        },
        s("title", { text: `${item.label}: ${format(item.value)}` }),
      ),
      s("text", { class: "axis", x: labelWidth + barWidth + 6, y: y + rowHeight / 2 + 4, text: format(item.value) }),
    );
  });
  const description = items.map((item) => `${item.label} ${format(item.value)}`).join(", ") || "No figures.";
  return frame(title, description, height, rows, null, "compact");
}

/**
 * A timeline of spans: `rows` `[{ label, spans: [{ start, end, className, title }] }]` with ISO instants, drawn from
 * the earliest start to the latest end (or now).
 */
export function timelineChart({ title, rows, now = new Date() }) {
  const rowHeight = 30;
  const labelWidth = 150;
  const height = Math.max(1, rows.length) * rowHeight + 30;
  const times = rows.flatMap((row) => row.spans.flatMap((span) => [Date.parse(span.start), Date.parse(span.end)]));
  const start = Math.min(...times);
  const end = Math.max(...times, now.getTime());
  const span = Math.max(1, end - start);
  const plotWidth = width - labelWidth - margin.right;
  const x = (time) => labelWidth + ((time - start) / span) * plotWidth;
  const parts = rows.map((row, index) => {
    const y = 6 + index * rowHeight;
    return s(
      "g",
      {},
      s("text", {
        class: "axis label",
        x: labelWidth - 8,
        y: y + rowHeight / 2 + 2,
        "text-anchor": "end",
        text: row.label.length > 22 ? `${row.label.slice(0, 21)}…` : row.label,
      }),
      row.spans.map((item) =>
        s(
          "rect",
          {
            class: `span ${item.className || ""}`,
            x: x(Date.parse(item.start)).toFixed(2),
            y: y + 4,
            width: Math.max(2, x(Date.parse(item.end)) - x(Date.parse(item.start))).toFixed(2),
            height: rowHeight - 10,
            rx: 3,
          },
          s("title", { text: item.title }),
        ),
      ),
    );
  });
  const nowX = x(now.getTime());
  parts.push(
    s("line", { class: "now", x1: nowX, x2: nowX, y1: 2, y2: height - 22 }),
    s("text", { class: "axis", x: nowX, y: height - 8, "text-anchor": "middle", text: "now" }),
    s("text", { class: "axis", x: labelWidth, y: height - 8, text: new Date(start).toISOString().slice(0, 10) }),
  );
  return frame(title, `${rows.length} subscription(s) over time.`, height, parts, null, "compact");
}
