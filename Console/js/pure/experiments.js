// The experiments pages' arithmetic: a draft from the create form (checked as the server checks it), each variant's
// share of the audience, an experiment's state in words, and the results as the page shows them (percentages,
// intervals, the leading variant, money per currency). Pure: pages/experiments.js, pages/experiment.js and
// interval-chart.js build the markup.

import { money } from "./format.js";
import { conditionsText } from "./offerings.js";

const keyPattern = /^[a-z0-9_]{1,32}$/;
const identifierPattern = /^[A-Za-z0-9._-]{1,100}$/;

/** Each variant's share of the audience, its weight over the sum of the weights (0 to 1). */
export function shares(variants) {
  const total = variants.reduce((sum, variant) => sum + (Number(variant.weight) || 0), 0);
  return variants.map((variant) => (total > 0 ? (Number(variant.weight) || 0) / total : 0));
}

/**
 * The experiment the create form describes: `experiment_id`, `name`, `rule_id` (the audience: a targeting rule, or
 * empty for every request) and `variants` (`[{ key, offering_id, weight }]` as typed, rows with neither a key nor
 * an offering left out). Answers `{ experiment, problems }`: `problems` lists in words what the server would
 * refuse (2 to 4 variants, keys `a-z0-9_` and unique, whole weights from 1 to 10000, an offering each).
 */
export function draftExperiment(values) {
  const variants = values.variants
    .filter((variant) => String(variant.key || "").trim() || variant.offering_id)
    .map((variant) => ({ key: String(variant.key || "").trim(), offering_id: variant.offering_id || "", weight: Number(variant.weight) }));
  const experiment = { experiment_id: values.experiment_id.trim(), name: values.name.trim(), variants };
  if (values.rule_id) experiment.audience = { rule_id: values.rule_id };
  const problems = [];
  if (!identifierPattern.test(experiment.experiment_id)) problems.push("The id is 1-100 letters, digits, '.', '_' or '-'.");
  if (!experiment.name) problems.push("The experiment needs a name.");
  if (variants.length < 2 || variants.length > 4) problems.push("An experiment compares 2 to 4 variants.");
  for (const variant of variants) {
    if (!keyPattern.test(variant.key)) problems.push(`Variant key '${variant.key}': 1-32 of a-z, 0-9 and '_'.`);
    if (!variant.offering_id) problems.push(`Variant '${variant.key}' needs an offering.`);
    if (!Number.isInteger(variant.weight) || variant.weight < 1 || variant.weight > 10000) {
      problems.push(`Variant '${variant.key}': the weight is a whole number from 1 to 10000.`);
    }
  }
  const keys = variants.map((variant) => variant.key);
  if (new Set(keys).size !== keys.length) problems.push("Variant keys must differ.");
  return { experiment, problems };
}

/** An experiment's state for a badge: its words and tone. */
export function stateBadge(experiment) {
  const tones = { draft: "neutral", running: "good", stopped: "warn" };
  return { text: experiment.state || "draft", tone: tones[experiment.state] || "neutral" };
}

/** Which of start and stop an experiment's state allows (a stopped experiment is never started again). */
export function allowedActions(experiment) {
  const state = experiment.state || "draft";
  return { start: state === "draft", stop: state === "running" };
}

/** Who takes part, in words: a rule by its id, conditions written out as a rule's, or every request. */
export function audienceText(experiment) {
  const audience = experiment.audience;
  if (!audience) return "every request";
  if (audience.rule_id) return `rule ${audience.rule_id}`;
  return conditionsText(audience.conditions || {});
}

/** The variants in a line (`a: standard ×1, b: germany ×1`). */
export function variantsText(experiment) {
  return (experiment.variants || []).map((variant) => `${variant.key}: ${variant.offering_id} ×${variant.weight}`).join(", ");
}

/** A rate (0 to 1) as a percentage with `digits` decimals; `—` for none. */
export function percent(rate, digits = 1) {
  if (rate === null || rate === undefined || Number.isNaN(rate)) return "—";
  return `${(rate * 100).toFixed(digits)}%`;
}

/** An interval of rates as `1.2% – 3.4%`. */
export function rateInterval(interval) {
  return `${percent(interval.low)} – ${percent(interval.high)}`;
}

/** An amount in a currency's units (not milliunits) as money. */
export function units(amount, currency) {
  if (amount === null || amount === undefined) return "—";
  return money(Math.round(amount * 1000), currency);
}

/** The currencies any variant earned in, in order. */
export function currencies(report) {
  return [...new Set(report.variants.flatMap((variant) => (variant.revenue || []).map((entry) => entry.currency)))].sort();
}

/** A variant's revenue in `currency`: `{ total, per_customer, low, high, chance_to_be_best }` (zeros when it earned
 *  nothing there). */
export function revenueIn(variant, currency) {
  return (variant.revenue || []).find((entry) => entry.currency === currency) || { currency, total: 0, per_customer: 0 };
}

/** The revenue per customer cell: the figure and its interval when the report has one. */
export function revenueText(entry) {
  const figure = units(entry.per_customer, entry.currency);
  if (entry.low === undefined || entry.high === undefined) return figure;
  return `${figure} (${units(entry.low, entry.currency)} – ${units(entry.high, entry.currency)})`;
}

/** The key of the variant most likely to convert best, with its chance; `null` before anyone was exposed. */
export function leader(report) {
  const exposed = report.variants.some((variant) => variant.customers_exposed > 0);
  if (!exposed || report.variants.length === 0) return null;
  const best = report.variants.reduce((top, variant) => (variant.chance_to_be_best > top.chance_to_be_best ? variant : top));
  return { key: best.key, chance: best.chance_to_be_best };
}

/** The sentence under the results' heading. */
export function leaderText(report) {
  const top = leader(report);
  if (!top) return "Nobody has been shown a variant yet.";
  const exposed = report.variants.reduce((sum, variant) => sum + variant.customers_exposed, 0);
  return `Variant ${top.key} is the most likely to convert best (${percent(top.chance, 0)} chance), over ${exposed} customer(s) exposed.`;
}

/**
 * Where a chart of conversion per variant draws each row (`interval-chart.js`), in a box `width` wide: the bar to
 * the rate, the whisker from `low` to `high`, all on one scale from 0 to a round percentage above the highest end.
 */
export function intervalLayout(variants, { width = 640, labelWidth = 120, rowHeight = 30 } = {}) {
  const highest = Math.max(0.01, ...variants.map((variant) => variant.conversion.high));
  const steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1];
  const max = steps.find((step) => step >= highest) || 1;
  const plotWidth = width - labelWidth - 70;
  const x = (rate) => labelWidth + (Math.min(Math.max(rate, 0), max) / max) * plotWidth;
  const rows = variants.map((variant, index) => {
    const y = 6 + index * rowHeight;
    return {
      key: variant.key,
      seriesIndex: index % 4,
      y,
      middle: y + rowHeight / 2,
      barWidth: x(variant.conversion.rate) - labelWidth,
      low: x(variant.conversion.low),
      high: x(variant.conversion.high),
      rate: variant.conversion.rate,
      interval: variant.conversion,
    };
  });
  return { rows, rowHeight, labelWidth, max, maxX: x(max), height: Math.max(1, variants.length) * rowHeight + 28 };
}
