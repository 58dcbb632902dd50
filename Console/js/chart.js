// Charts drawn as SVG by the console itself (no library): bars per day (stacked series), lines per day, and
// horizontal bars per item. Each chart scales with its box (viewBox, width 100%), names itself for screen readers,
// and gives every bar or point a <title> with its figure; the pages show the same figures as numbers and tables.
// Colours come from the stylesheet (series-0, series-1, ...), so the charts follow light and dark mode.
// Markup only: where each bar, point and span goes is worked out in pure/scale.js.

import { h, s } from "./dom.js";
import { count } from "./pure/format.js";
import {
  axisLayout,
  barDescription,
  barLayout,
  chartWidth,
  horizontalBarLayout,
  lineDescription,
  lineLayout,
  margin,
  timelineLayout,
} from "./pure/scale.js";

let chartCounter = 0;

function frame(title, description, height, body, legend, className = "") {
  const id = `chart-${++chartCounter}`;
  return h(
    "figure",
    { class: `chart ${className}`.trim() },
    h("figcaption", { id: `${id}-title`, text: title }),
    s(
      "svg",
      {
        viewBox: `0 0 ${chartWidth} ${height}`,
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

/** The names of the series beside their colours: when there are two or more, or one that `always` asks to name
 *  (the only group of a grouped chart). */
function legendOf(series, always = false) {
  if (series.length < (always ? 1 : 2)) return null;
  return h(
    "ul",
    { class: "legend" },
    series.map((item, index) => h("li", {}, h("span", { class: `swatch series-${index}`, "aria-hidden": "true" }), item.name)),
  );
}

function axes(labels, scale, plot, format) {
  const layout = axisLayout(labels, scale, plot);
  return [
    ...layout.grid.flatMap(({ tick, y }) => [
      s("line", { class: "grid", x1: margin.left, x2: margin.left + plot.width, y1: y, y2: y }),
      s("text", { class: "axis", x: margin.left - 6, y: y + 4, "text-anchor": "end", text: format(tick) }),
    ]),
    ...layout.labels.map((label) =>
      s("text", { class: "axis", x: label.x, y: layout.labelY, "text-anchor": "middle", text: label.text }),
    ),
  ];
}

/**
 * Stacked bars, one per label. `series`: `[{ name, values }]`, each value a number per label (missing: 0).
 * `format` writes the bars' titles, `axisFormat` the axis (short: money without its currency); `integer` keeps the
 * ticks on whole numbers (counts); `negative` draws negative values too, stacked down from zero.
 */
export function barChart({ title, labels, series, format = count, axisFormat = format, integer = true, height = 240, negative = false }) {
  const layout = barLayout({ labels, series, integer, height, negative });
  const bars = layout.bars.map((bar) =>
    s(
      "rect",
      {
        class: `bar series-${bar.seriesIndex}`,
        x: bar.x.toFixed(2),
        y: bar.y.toFixed(2),
        width: bar.width.toFixed(2),
        height: bar.height.toFixed(2),
      },
      s("title", { text: `${bar.label}: ${bar.name} ${format(bar.value)}` }),
    ),
  );
  const description = barDescription(labels, series, layout.total, format);
  return frame(title, description, height, [...axes(labels, layout.scale, layout.plot, axisFormat), ...bars], legendOf(series));
}

/** Lines, one point per label. `series`: `[{ name, values }]`; `format` writes the points' titles, `axisFormat` the
 *  axis; `legend` names even a single series. */
export function lineChart({ title, labels, series, format = count, axisFormat = format, integer = true, height = 240, legend = false }) {
  const layout = lineLayout({ labels, series, integer, height });
  const lines = layout.lines.map((line) =>
    s(
      "g",
      { class: `line series-${line.seriesIndex}` },
      s("polyline", { points: line.points.map((point) => `${point.x.toFixed(2)},${point.y.toFixed(2)}`).join(" ") }),
      line.points.map((point) =>
        s(
          "circle",
          { cx: point.x.toFixed(2), cy: point.y.toFixed(2), r: layout.radius },
          s("title", { text: `${point.label}: ${line.name} ${format(point.value)}` }),
        ),
      ),
    ),
  );
  const description = lineDescription(labels, series, format);
  return frame(title, description, height, [...axes(labels, layout.scale, layout.plot, axisFormat), ...lines], legendOf(series, legend));
}

/** Horizontal bars, one per item: `items` `[{ label, value }]`, largest first. */
export function horizontalBarChart({ title, items, format = count }) {
  const layout = horizontalBarLayout(items);
  const { rowHeight, labelWidth } = layout;
  const rows = layout.rows.map(({ item, label, y, barWidth, drawnWidth }) =>
    s(
      "g",
      {},
      s("text", { class: "axis label", x: labelWidth - 8, y: y + rowHeight / 2 + 4, "text-anchor": "end", text: label }),
      s(
        "rect",
        { class: "bar series-0", x: labelWidth, y: y + 4, width: drawnWidth.toFixed(2), height: rowHeight - 8 },
        s("title", { text: `${item.label}: ${format(item.value)}` }),
      ),
      s("text", { class: "axis", x: labelWidth + barWidth + 6, y: y + rowHeight / 2 + 4, text: format(item.value) }),
    ),
  );
  const description = items.map((item) => `${item.label} ${format(item.value)}`).join(", ") || "No figures.";
  return frame(title, description, layout.height, rows, null, "compact");
}

/**
 * A timeline of spans: `rows` `[{ label, spans: [{ start, end, className, title }] }]` with ISO instants, drawn from
 * the earliest start to the latest end (or now).
 */
export function timelineChart({ title, rows, now = new Date() }) {
  const layout = timelineLayout(rows, now);
  const { rowHeight, labelWidth, height, nowX } = layout;
  const parts = layout.rows.map((row) =>
    s(
      "g",
      {},
      s("text", { class: "axis label", x: labelWidth - 8, y: row.y + rowHeight / 2 + 2, "text-anchor": "end", text: row.label }),
      row.spans.map(({ item, x, width }) =>
        s(
          "rect",
          { class: `span ${item.className || ""}`, x: x.toFixed(2), y: row.y + 4, width: width.toFixed(2), height: rowHeight - 10, rx: 3 },
          s("title", { text: item.title }),
        ),
      ),
    ),
  );
  parts.push(
    s("line", { class: "now", x1: nowX, x2: nowX, y1: 2, y2: height - 22 }),
    s("text", { class: "axis", x: nowX, y: height - 8, "text-anchor": "middle", text: "now" }),
    s("text", { class: "axis", x: labelWidth, y: height - 8, text: layout.startDay }),
  );
  return frame(title, `${rows.length} subscription(s) over time.`, height, parts, null, "compact");
}
