// The offerings pages' arithmetic (js/pure/offerings.js): the paywall in a locale (the catalog's fallback, as
// Tests/CatalogTests/CatalogVisibilityTests.swift holds LocaleMatcher to it), the edited offering, the rules.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bestLocale,
  conditionsText,
  editedOffering,
  isColor,
  moveRule,
  packagesText,
  parsePaywall,
  paywallView,
  previewLocales,
  ruleFromForm,
  rulesChangeSummary,
} from "../js/pure/offerings.js";

const paywall = {
  layout: "hero",
  colors: { accent: "#2E7D32" },
  image_urls: { header: "https://example.com/h.png" },
  default_locale: "en",
  localizations: {
    en: { title: "Grow", subtitle: "Join", features: ["Seeds"], call_to_action: "Start" },
    de: { title: "Wachsen", features: ["Samen"] },
    "pt-BR": { title: "Crescer" },
    "fr-CA": { title: "Pousser (CA)" },
    "fr-CH": { title: "Pousser (CH)" },
  },
};

describe("bestLocale", () => {
  const available = Object.keys(paywall.localizations);
  it("takes the exact tag, whatever its case and separator", () => {
    assert.equal(bestLocale("de", available, "en"), "de");
    assert.equal(bestLocale("pt_br", available, "en"), "pt-BR");
    assert.equal(bestLocale("PT-BR", available, "en"), "pt-BR");
  });
  it("then the bare language", () => {
    assert.equal(bestLocale("de-AT", available, "en"), "de");
  });
  it("then another region of the language, the first in order", () => {
    assert.equal(bestLocale("pt-PT", available, "en"), "pt-BR");
    assert.equal(bestLocale("fr-FR", available, "en"), "fr-CA");
    assert.equal(bestLocale("fr", available, "en"), "fr-CA");
  });
  it("then the default locale", () => {
    assert.equal(bestLocale("ja-JP", available, "en"), "en");
    assert.equal(bestLocale("", available, "en"), "en");
    assert.equal(bestLocale(undefined, available, "en"), "en");
  });
  it("does not take a language that only starts alike", () => {
    assert.equal(bestLocale("dea", ["de", "en"], "en"), "en");
  });
});

describe("paywallView", () => {
  it("answers the texts of the picked locale with the shared layout, colours and images", () => {
    const view = paywallView(paywall, "de-AT");
    assert.deepEqual(view, {
      layout: "hero",
      colors: { accent: "#2E7D32" },
      image_urls: { header: "https://example.com/h.png" },
      locale: "de",
      title: "Wachsen",
      subtitle: null,
      features: ["Samen"],
      call_to_action: null,
    });
  });
  it("falls back to the default locale's texts", () => {
    assert.equal(paywallView(paywall, "ja").title, "Grow");
    assert.equal(paywallView(paywall, "ja").locale, "en");
  });
  it("answers null without texts to show", () => {
    assert.equal(paywallView(null, "en"), null);
    assert.equal(paywallView({ layout: "x", default_locale: "en", localizations: {} }, "en"), null);
  });
});

describe("parsePaywall", () => {
  it("reads a valid document and an empty text (no paywall)", () => {
    assert.deepEqual(parsePaywall(JSON.stringify(paywall)), { paywall });
    assert.deepEqual(parsePaywall("  "), { paywall: undefined });
  });
  it("says what is wrong", () => {
    assert.match(parsePaywall("{").problem, /not JSON/);
    assert.match(parsePaywall("[]").problem, /JSON object/);
    assert.match(parsePaywall('{"layout":"x"}').problem, /default_locale, localizations/);
    assert.match(parsePaywall('{"layout":"x","default_locale":"fr","localizations":{"en":{"title":"a"}}}').problem, /default locale \(fr\)/);
    assert.match(parsePaywall('{"layout":"x","default_locale":"en","localizations":{"en":{"title":"a"}},"colors":{"accent":"red"}}').problem, /accent/);
  });
  it("knows a colour", () => {
    assert.ok(isColor("#A1b2C3") && isColor("#A1b2C3ff"));
    assert.ok(!isColor("#abc") && !isColor("red") && !isColor(null));
  });
  it("offers the paywall's locales and a few others to preview", () => {
    const locales = previewLocales(paywall);
    assert.deepEqual(locales.slice(0, 5), ["en", "de", "pt-BR", "fr-CA", "fr-CH"]);
    assert.ok(locales.includes("de-AT") && locales.includes("ja-JP"));
    assert.deepEqual(previewLocales(undefined), ["en-US", "de-AT", "fr-FR", "ja-JP"]);
  });
});

describe("editedOffering", () => {
  const stored = { offering_id: "standard", description: "Old", default: true, packages: [{ package_id: "$monthly", product_id: "club" }], paywall };
  it("takes the form's values and leaves empty store ids and rows out", () => {
    const edited = editedOffering(stored, {
      offering_id: " standard ",
      description: " ",
      default: true,
      packages: [
        { package_id: "$annual", product_id: "year", store_product_ids: { app_store: " com.x.year ", play_store: "", stripe: "" } },
        { package_id: "", product_id: "", store_product_ids: {} },
        { package_id: "$monthly", product_id: "club", store_product_ids: {} },
      ],
      paywall: undefined,
    });
    assert.deepEqual(edited, {
      offering_id: "standard",
      default: true,
      packages: [
        { package_id: "$annual", product_id: "year", store_product_ids: { app_store: "com.x.year" } },
        { package_id: "$monthly", product_id: "club" },
      ],
    });
    assert.equal(stored.description, "Old", "the stored offering is not changed");
  });
  it("writes the packages in a line", () => {
    assert.equal(
      packagesText({ packages: [{ package_id: "$annual", product_id: "year", store_product_ids: { play_store: "y1" } }, { package_id: "$m", product_id: "club" }] }),
      "$annual: year (play store: y1); $m: club",
    );
  });
});

describe("rules", () => {
  const rules = [{ rule_id: "a", offering_id: "x" }, { rule_id: "b", offering_id: "y" }, { rule_id: "c", offering_id: "z" }];
  it("moves a rule within the list", () => {
    assert.deepEqual(moveRule(rules, 2, -1).map((rule) => rule.rule_id), ["a", "c", "b"]);
    assert.deepEqual(moveRule(rules, 0, 1).map((rule) => rule.rule_id), ["b", "a", "c"]);
    assert.deepEqual(moveRule(rules, 0, -1).map((rule) => rule.rule_id), ["a", "b", "c"]);
    assert.deepEqual(moveRule(rules, 2, 5).map((rule) => rule.rule_id), ["a", "b", "c"]);
    assert.deepEqual(rules.map((rule) => rule.rule_id), ["a", "b", "c"], "a new array");
  });
  it("reads the rule form, leaving empty conditions out", () => {
    assert.deepEqual(
      ruleFromForm({ rule_id: " de ", offering_id: "germany", platforms: [], countries: "de, at", locales: "", min_app_version: "", below_app_version: "", build: "", new_customer: "", trial_used: "", subscription_group: "", subscription_status: "" }),
      { rule_id: "de", offering_id: "germany", countries: ["DE", "AT"] },
    );
    assert.deepEqual(
      ruleFromForm({ rule_id: "r", offering_id: "o", platforms: ["app_store"], countries: "", locales: "de fr-CA", min_app_version: "2.0", below_app_version: "3", build: "distribution", new_customer: "true", trial_used: "false", subscription_group: "club", subscription_status: "lapsed" }),
      {
        rule_id: "r",
        offering_id: "o",
        platforms: ["app_store"],
        locales: ["de", "fr-CA"],
        min_app_version: "2.0",
        below_app_version: "3",
        build: "distribution",
        customer: { new_customer: true, trial_used: false, subscription: { group: "club", status: "lapsed" } },
      },
    );
  });
  it("says a rule's conditions in words", () => {
    assert.equal(conditionsText({ rule_id: "r", offering_id: "o" }), "every request");
    assert.equal(
      conditionsText({ countries: ["DE", "AT"], min_app_version: "2", build: "development", customer: { new_customer: true, subscription: { group: "club", status: "never" } } }),
      "country DE, AT; version ≥ 2; development builds; new customer; subscription in club: never",
    );
  });
  it("sums up a dry run", () => {
    assert.equal(rulesChangeSummary({ created: ["a"], updated: [], deleted: ["b", "c"], unchanged: ["d"] }), "1 rule(s) added, 0 changed or moved, 2 removed, 1 unchanged.");
  });
});
