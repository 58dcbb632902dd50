// The experiments pages' arithmetic (js/pure/experiments.js) and what a role may change (js/pure/roles.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  allowedActions,
  audienceText,
  currencies,
  draftExperiment,
  intervalLayout,
  leader,
  leaderText,
  percent,
  rateInterval,
  revenueIn,
  revenueText,
  shares,
  stateBadge,
  units,
  variantsText,
} from "../js/pure/experiments.js";
import { money } from "../js/pure/format.js";
import { mayChangeOfferings } from "../js/pure/roles.js";

const report = {
  report: "experiment",
  experiment: { experiment_id: "e", name: "E", state: "running", variants: [] },
  method: "Beta",
  variants: [
    { key: "a", offering_id: "standard", weight: 1, customers_exposed: 10, paying_customers: 1, chance_to_be_best: 0.2, conversion: { rate: 0.1, low: 0.02, high: 0.3 }, revenue: [{ currency: "USD", total: 2.99, per_customer: 0.299, low: 0.01, high: 0.9 }] },
    { key: "b", offering_id: "germany", weight: 3, customers_exposed: 12, paying_customers: 4, chance_to_be_best: 0.8, conversion: { rate: 0.35, low: 0.15, high: 0.6 }, revenue: [{ currency: "EUR", total: 40, per_customer: 3.33 }] },
  ],
};

describe("draftExperiment", () => {
  const values = { experiment_id: "annual_first", name: " Annual first ", rule_id: "", variants: [{ key: "a", offering_id: "standard", weight: "1" }, { key: "b", offering_id: "germany", weight: "3" }, { key: "", offering_id: "", weight: "1" }] };
  it("builds the experiment, leaving empty rows out", () => {
    const { experiment, problems } = draftExperiment(values);
    assert.deepEqual(problems, []);
    assert.deepEqual(experiment, { experiment_id: "annual_first", name: "Annual first", variants: [{ key: "a", offering_id: "standard", weight: 1 }, { key: "b", offering_id: "germany", weight: 3 }] });
  });
  it("names the audience's rule", () => {
    assert.deepEqual(draftExperiment({ ...values, rule_id: "german_storefronts" }).experiment.audience, { rule_id: "german_storefronts" });
  });
  it("refuses what the server refuses", () => {
    const one = draftExperiment({ ...values, variants: [values.variants[0]] }).problems;
    assert.ok(one.some((problem) => problem.includes("2 to 4")), one.join());
    const five = draftExperiment({ ...values, variants: ["a", "b", "c", "d", "e"].map((key) => ({ key, offering_id: "x", weight: "1" })) }).problems;
    assert.ok(five.some((problem) => problem.includes("2 to 4")));
    const bad = draftExperiment({ experiment_id: "no spaces", name: "", rule_id: "", variants: [{ key: "A", offering_id: "x", weight: "0" }, { key: "b", offering_id: "", weight: "1.5" }, { key: "b", offering_id: "y", weight: "10001" }] }).problems;
    assert.equal(bad.length, 8, bad.join("\n"));
    assert.ok(bad.includes("Variant keys must differ."));
  });
});

describe("figures", () => {
  it("shares the audience by weight", () => {
    assert.deepEqual(shares([{ weight: 1 }, { weight: 3 }]), [0.25, 0.75]);
    assert.deepEqual(shares([{ weight: "" }, { weight: "" }]), [0, 0]);
  });
  it("writes rates, intervals and money in units", () => {
    assert.equal(percent(0.1234), "12.3%");
    assert.equal(percent(0.5, 0), "50%");
    assert.equal(percent(undefined), "—");
    assert.equal(rateInterval({ low: 0.02, high: 0.3 }), "2.0% – 30.0%");
    assert.equal(units(2.99, "USD"), money(2990, "USD"));
    assert.equal(units(null, "USD"), "—");
  });
  it("reads revenue per currency", () => {
    assert.deepEqual(currencies(report), ["EUR", "USD"]);
    assert.deepEqual(revenueIn(report.variants[0], "EUR"), { currency: "EUR", total: 0, per_customer: 0 });
    assert.equal(revenueText(report.variants[0].revenue[0]), `${money(299, "USD")} (${money(10, "USD")} – ${money(900, "USD")})`);
    assert.equal(revenueText(report.variants[1].revenue[0]), money(3330, "EUR"));
  });
  it("names the leader", () => {
    assert.deepEqual(leader(report), { key: "b", chance: 0.8 });
    assert.equal(leaderText(report), "Variant b is the most likely to convert best (80% chance), over 22 customer(s) exposed.");
    const empty = { ...report, variants: report.variants.map((variant) => ({ ...variant, customers_exposed: 0 })) };
    assert.equal(leader(empty), null);
    assert.equal(leaderText(empty), "Nobody has been shown a variant yet.");
  });
  it("says state and actions", () => {
    assert.deepEqual(stateBadge({ state: "running" }), { text: "running", tone: "good" });
    assert.deepEqual(stateBadge({}), { text: "draft", tone: "neutral" });
    assert.deepEqual(allowedActions({ state: "draft" }), { start: true, stop: false });
    assert.deepEqual(allowedActions({ state: "running" }), { start: false, stop: true });
    assert.deepEqual(allowedActions({ state: "stopped" }), { start: false, stop: false });
    assert.equal(audienceText({}), "every request");
    assert.equal(audienceText({ audience: { rule_id: "german_storefronts" } }), "rule german_storefronts");
    assert.equal(audienceText({ audience: { conditions: { countries: ["DE", "AT"], min_app_version: "3.0" } } }), "country DE, AT; version ≥ 3.0");
    assert.equal(variantsText({ variants: [{ key: "a", offering_id: "x", weight: 1 }, { key: "b", offering_id: "y", weight: 3 }] }), "a: x ×1, b: y ×3");
  });
});

describe("intervalLayout", () => {
  it("draws every variant on one round scale above the highest interval end", () => {
    const layout = intervalLayout(report.variants, { width: 640, labelWidth: 120, rowHeight: 30 });
    assert.equal(layout.max, 1);
    const plot = 640 - 120 - 70;
    assert.equal(layout.rows[0].barWidth, 0.1 * plot);
    assert.equal(layout.rows[1].low, 120 + 0.15 * plot);
    assert.equal(layout.rows[1].high, 120 + 0.6 * plot);
    assert.equal(layout.rows[1].y, 36);
    assert.equal(layout.height, 2 * 30 + 28);
  });
  it("zooms in on small rates and keeps everything inside the scale", () => {
    const small = intervalLayout([{ key: "a", conversion: { rate: 0.01, low: 0.004, high: 0.018 } }]);
    assert.equal(small.max, 0.02);
    assert.ok(small.rows[0].high <= small.maxX);
    assert.equal(intervalLayout([{ key: "a", conversion: { rate: 0, low: 0, high: 0 } }]).max, 0.01);
  });
});

describe("roles", () => {
  it("lets developers and admins change offerings, not viewers or support", () => {
    assert.ok(mayChangeOfferings({ role: "developer" }));
    assert.ok(mayChangeOfferings({ role: "admin" }));
    assert.ok(!mayChangeOfferings({ role: "viewer" }));
    assert.ok(!mayChangeOfferings({ role: "support" }));
    assert.ok(!mayChangeOfferings(null));
  });
});
