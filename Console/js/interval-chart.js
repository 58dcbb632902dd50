// An experiment's conversion per variant as SVG (no library): one horizontal bar per variant to its rate, with a
// whisker over its 95% credible interval; every bar has a <title> with its figures and the chart names itself for
// screen readers, as chart.js's charts do (the page shows the same figures in its table). Colours come from the
// stylesheet's series classes. Markup only: where everything goes is pure/experiments.js's intervalLayout.

import { h, s } from "./dom.js";
import { intervalLayout, percent, rateInterval } from "./pure/experiments.js";

const width = 640;

/** The chart of `variants` (the report's `ExperimentVariantResult`s), titled `title`. */
export function intervalChart({ title, variants }) {
  const layout = intervalLayout(variants, { width });
  const { rowHeight, labelWidth } = layout;
  const rows = layout.rows.map((row) =>
    s(
      "g",
      { class: "variant", dataset: { variant: row.key } },
      s("text", { class: "axis label", x: labelWidth - 8, y: row.middle + 4, "text-anchor": "end", text: `Variant ${row.key}` }),
      s(
        "rect",
        { class: `bar series-${row.seriesIndex}`, x: labelWidth, y: row.y + 6, width: Math.max(row.rate > 0 ? 1 : 0, row.barWidth).toFixed(2), height: rowHeight - 12 },
        s("title", { text: `Variant ${row.key}: ${percent(row.rate)} (95%: ${rateInterval(row.interval)})` }),
      ),
      s("line", { class: "whisker", x1: row.low.toFixed(2), x2: row.high.toFixed(2), y1: row.middle, y2: row.middle }),
      s("line", { class: "whisker", x1: row.low.toFixed(2), x2: row.low.toFixed(2), y1: row.middle - 6, y2: row.middle + 6 }),
      s("line", { class: "whisker", x1: row.high.toFixed(2), x2: row.high.toFixed(2), y1: row.middle - 6, y2: row.middle + 6 }),
      s("text", { class: "axis", x: row.high + 6, y: row.middle + 4, text: percent(row.rate) }),
    ),
  );
  const axisY = layout.height - 8;
  const axis = [
    s("text", { class: "axis", x: labelWidth, y: axisY, "text-anchor": "middle", text: "0%" }),
    s("text", { class: "axis", x: layout.maxX, y: axisY, "text-anchor": "middle", text: percent(layout.max, 0) }),
    s("line", { class: "grid", x1: layout.maxX, x2: layout.maxX, y1: 2, y2: axisY - 12 }),
  ];
  const id = `interval-chart-${variants.map((variant) => variant.key).join("-")}`;
  const description = variants.map((variant) => `Variant ${variant.key} ${percent(variant.conversion.rate)} (${rateInterval(variant.conversion)})`).join(", ") || "No variants.";
  return h(
    "figure",
    { class: "chart compact", id: "conversion-chart" },
    h("figcaption", { id: `${id}-title`, text: title }),
    s(
      "svg",
      { viewBox: `0 0 ${width} ${layout.height}`, role: "img", "aria-labelledby": `${id}-title ${id}-description`, preserveAspectRatio: "xMidYMid meet" },
      s("desc", { id: `${id}-description`, text: description }),
      rows,
      axis,
    ),
  );
}
