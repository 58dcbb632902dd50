// The offerings pages' arithmetic: the paywall document as the app would see it in one locale (the catalog's locale
// fallback, as Services/Catalog/Domain/LocaleMatcher.swift picks product texts and paywalls), an offering as the
// editor sends it back, and the targeting rules in their order and in words. Pure: pages/offerings.js,
// pages/offering.js and paywall-preview.js build the markup.

import { words } from "./format.js";

/** The platforms an offering's package can name a store product for (`StorePlatform`). */
export const platforms = ["app_store", "play_store", "stripe"];

/** Lowercase with `-` separators, so that `pt_BR` and `PT-br` compare equal. */
export function normalizedLocale(tag) {
  return String(tag).toLowerCase().replaceAll("_", "-");
}

/**
 * The key of `available` whose texts a caller asking for `requested` gets: the exact tag, then the bare language
 * (`de` for `de-AT`), then another region of the language (`de-CH`, the first in order), then `defaultLocale`.
 */
export function bestLocale(requested, available, defaultLocale) {
  if (!requested) return defaultLocale;
  const wanted = normalizedLocale(requested);
  const keyed = [...available].map((key) => [normalizedLocale(key), key]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const exact = keyed.find(([key]) => key === wanted);
  if (exact) return exact[1];
  const language = wanted.split("-")[0];
  const bare = keyed.find(([key]) => key === language);
  if (bare) return bare[1];
  const sibling = keyed.find(([key]) => key.startsWith(`${language}-`));
  return sibling ? sibling[1] : defaultLocale;
}

/** Whether `value` is a colour the paywall may hold (`#RRGGBB` or `#RRGGBBAA`). */
export function isColor(value) {
  return typeof value === "string" && /^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/.test(value);
}

/**
 * The paywall as `GET /v1/offerings` would answer it for `locale` (`PaywallView`): layout, colours, image URLs, the
 * locale picked and its texts; `null` when the document has no texts in that locale nor its default one.
 */
export function paywallView(paywall, locale) {
  if (!paywall || typeof paywall !== "object") return null;
  const localizations = paywall.localizations && typeof paywall.localizations === "object" ? paywall.localizations : {};
  const picked = bestLocale(locale, Object.keys(localizations), paywall.default_locale);
  const text = localizations[picked] || localizations[paywall.default_locale];
  if (!text || typeof text !== "object") return null;
  return {
    layout: paywall.layout || "",
    colors: paywall.colors || {},
    image_urls: paywall.image_urls || {},
    locale: picked,
    title: text.title || "",
    subtitle: text.subtitle || null,
    features: Array.isArray(text.features) ? text.features : [],
    call_to_action: text.call_to_action || null,
  };
}

/**
 * Reads the paywall editor's text: `{ paywall }` (`undefined` when the text is empty: the offering has no paywall),
 * or `{ problem }` in words when it is not a JSON object with a layout, a default locale and its texts.
 */
export function parsePaywall(text) {
  if (!text || !text.trim()) return { paywall: undefined };
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `The paywall is not JSON: ${error.message}` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { problem: "The paywall must be a JSON object." };
  const problems = [];
  if (!value.layout) problems.push("a layout");
  if (!value.default_locale) problems.push("a default_locale");
  if (!value.localizations || typeof value.localizations !== "object") problems.push("localizations");
  else if (value.default_locale && !value.localizations[value.default_locale]) problems.push(`texts in its default locale (${value.default_locale})`);
  if (problems.length) return { paywall: value, problem: `The paywall needs ${problems.join(", ")}.` };
  const badColors = Object.entries(value.colors || {}).filter(([, color]) => !isColor(color));
  if (badColors.length) return { paywall: value, problem: `Colours are #RRGGBB or #RRGGBBAA: ${badColors.map(([name]) => name).join(", ")}.` };
  return { paywall: value };
}

/** The locales a preview can be asked for: the paywall's own and a few more, to show the fallback. */
export function previewLocales(paywall) {
  const own = Object.keys((paywall && paywall.localizations) || {});
  return [...new Set([...own, "en-US", "de-AT", "fr-FR", "ja-JP"])];
}

/**
 * The offering the editor sends: `offering` (as stored, or `{}` for a new one) with the form's `edits`:
 * `offering_id`, `description` (empty removes it), `default`, `packages` (`[{ package_id, product_id,
 * store_product_ids: { platform: id } }]`, empty ids left out) and `paywall` (`undefined` removes it).
 */
export function editedOffering(offering, edits) {
  const edited = structuredClone(offering || {});
  edited.offering_id = edits.offering_id.trim();
  const description = (edits.description || "").trim();
  if (description) edited.description = description;
  else delete edited.description;
  edited.default = Boolean(edits.default);
  edited.packages = edits.packages
    .filter((item) => item.package_id.trim() || item.product_id.trim())
    .map((item) => {
      const storeIDs = Object.fromEntries(
        Object.entries(item.store_product_ids || {})
          .map(([platform, id]) => [platform, (id || "").trim()])
          .filter(([, id]) => id),
      );
      const next = { package_id: item.package_id.trim(), product_id: item.product_id.trim() };
      if (Object.keys(storeIDs).length) next.store_product_ids = storeIDs;
      return next;
    });
  if (edits.paywall === undefined) delete edited.paywall;
  else edited.paywall = edits.paywall;
  return edited;
}

/** A package's products in a line (`$monthly: garden_club (Google Play: club.monthly)`). */
export function packagesText(offering) {
  return (offering.packages || [])
    .map((item) => {
      const stores = Object.entries(item.store_product_ids || {}).map(([platform, id]) => `${words(platform)}: ${id}`);
      return `${item.package_id}: ${item.product_id}${stores.length ? ` (${stores.join(", ")})` : ""}`;
    })
    .join("; ");
}

/** `rules` with the one at `index` moved by `delta` places (kept within the list); a new array. */
export function moveRule(rules, index, delta) {
  const target = Math.min(rules.length - 1, Math.max(0, index + delta));
  const moved = [...rules];
  if (index < 0 || index >= rules.length || target === index) return moved;
  const [rule] = moved.splice(index, 1);
  moved.splice(target, 0, rule);
  return moved;
}

function customerText(customer) {
  const parts = [];
  if (customer.new_customer !== undefined) parts.push(customer.new_customer ? "new customer" : "returning customer");
  if (customer.trial_used !== undefined) parts.push(customer.trial_used ? "trial used" : "trial not used");
  if (customer.subscription) parts.push(`subscription in ${customer.subscription.group}: ${customer.subscription.status}`);
  return parts;
}

/** A rule's (or an audience's) conditions in words; `every request` when it states none. */
export function conditionsText(rule) {
  const parts = [];
  if (rule.platforms) parts.push(`platform ${rule.platforms.map(words).join(" or ")}`);
  if (rule.countries) parts.push(`country ${rule.countries.join(", ")}`);
  if (rule.min_app_version) parts.push(`version ≥ ${rule.min_app_version}`);
  if (rule.below_app_version) parts.push(`version < ${rule.below_app_version}`);
  if (rule.locales) parts.push(`locale ${rule.locales.join(", ")}`);
  if (rule.build) parts.push(`${rule.build} builds`);
  if (rule.customer) parts.push(...customerText(rule.customer));
  return parts.join("; ") || "every request";
}

function list(text, transform = (item) => item) {
  return (text || "")
    .split(/[,\s]+/)
    .map((item) => transform(item.trim()))
    .filter(Boolean);
}

/**
 * A targeting rule from the rule form's values (texts, as typed): `rule_id`, `offering_id`, `platforms` (an array),
 * `countries` and `locales` (comma or space separated), `min_app_version`, `below_app_version`, `build`,
 * `new_customer` and `trial_used` (`""`, `"true"` or `"false"`), `subscription_group` and `subscription_status`.
 * A condition left empty is left out.
 */
export function ruleFromForm(values) {
  const rule = { rule_id: values.rule_id.trim(), offering_id: values.offering_id };
  if (values.platforms && values.platforms.length) rule.platforms = values.platforms;
  const countries = list(values.countries, (item) => item.toUpperCase());
  if (countries.length) rule.countries = countries;
  for (const key of ["min_app_version", "below_app_version"]) {
    const value = (values[key] || "").trim();
    if (value) rule[key] = value;
  }
  const locales = list(values.locales);
  if (locales.length) rule.locales = locales;
  if (values.build) rule.build = values.build;
  const customer = {};
  for (const key of ["new_customer", "trial_used"]) {
    if (values[key] === "true" || values[key] === "false") customer[key] = values[key] === "true";
  }
  const group = (values.subscription_group || "").trim();
  if (group && values.subscription_status) customer.subscription = { group, status: values.subscription_status };
  if (Object.keys(customer).length) rule.customer = customer;
  return rule;
}

/** What a dry run or a save of the rules changes, in a sentence (`CatalogImportResult` by rule id). */
export function rulesChangeSummary(result) {
  return `${result.created.length} rule(s) added, ${result.updated.length} changed or moved, ${result.deleted.length} removed, ${result.unchanged.length} unchanged.`;
}
