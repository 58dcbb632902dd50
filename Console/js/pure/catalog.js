// The catalog pages' arithmetic: a product's cells in the catalog's table, the difference an import makes (field by
// field), and a product as the edit form sends it back. Pure: pages/catalog.js, pages/import.js and
// pages/product.js build the markup.

import { storeName, truncate, words } from "./format.js";

/** Whether a product is cleared for sale (absent means yes, as the catalog reads it). */
export function clearedForSale(product) {
  return product.cleared_for_sale !== false;
}

/** A product's minimum app version and what older versions see, or `—`. */
export function minVersionText(product) {
  if (!product.min_app_version) return "—";
  return `${product.min_app_version} (below: ${words(product.below_min_version || "hide")})`;
}

/** A product's store ids in a line, or why it has none. */
export function storeIDsText(product) {
  return (
    Object.entries(product.store_product_ids || {})
      .map(([store, id]) => `${storeName(store)}: ${id}`)
      .join("; ") || "none (free or included)"
  );
}

/** A product's localized names in a line (`en-US: Seeds; fr-FR: Graines`). */
export function localizationsText(product) {
  return Object.entries(product.localizations || {})
    .map(([locale, text]) => `${locale}: ${text.name}`)
    .join("; ");
}

/** JSON with every object's keys in order, so that two equal values always read the same; `(absent)` for
 *  `undefined`. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "(absent)";
}

/** A value in at most 160 characters, for a cell of the import's difference. */
export function shortValue(value) {
  if (value === undefined) return "(absent)";
  return truncate(canonical(value), 160);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The fields whose values differ between two products, down to the changed leaf (`localizations.en.name`), with
 *  both values. */
export function fieldChanges(before, after, prefix = "") {
  const names = [...new Set([...Object.keys(before || {}), ...Object.keys(after || {})])].sort();
  return names.flatMap((name) => {
    const old = before?.[name];
    const next = after?.[name];
    if (canonical(old) === canonical(next)) return [];
    const path = prefix ? `${prefix}.${name}` : name;
    if (isObject(old) && isObject(next)) return fieldChanges(old, next, path);
    return [{ name: path, before: old, after: next }];
  });
}

/** Products by id. */
export function byID(products) {
  return new Map(products.map((product) => [product.product_id, product]));
}

/** A catalog document's products (none when it has no list of them). */
export function documentProducts(catalogDocument) {
  return Array.isArray(catalogDocument.products) ? catalogDocument.products : [];
}

/** What an import does, in a sentence (a dry run's answer or an applied one's). */
export function importSummary(result) {
  return `${result.created.length} product(s) created, ${result.updated.length} updated, ${result.deleted.length} deleted.`;
}

/**
 * `product` with the edit form's values: `edits` holds `review_state`, `cleared_for_sale`, `below_min_version`,
 * `sort_order` (text), `min_app_version` and `grandfathered_below_version` (text; empty removes them) and
 * `localizations` (`[{ locale, name, description, price_hint }]`, trimmed; an empty description or price hint removes
 * it). Fields the form does not show keep their values; `product` is not changed.
 */
export function editedProduct(product, edits) {
  const edited = structuredClone(product);
  edited.review_state = edits.review_state;
  edited.cleared_for_sale = edits.cleared_for_sale;
  edited.below_min_version = edits.below_min_version;
  edited.sort_order = Number(edits.sort_order || 0);
  for (const key of ["min_app_version", "grandfathered_below_version"]) {
    const value = (edits[key] || "").trim();
    if (value) edited[key] = value;
    else delete edited[key];
  }
  edited.localizations = {};
  for (const text of edits.localizations) {
    const previous = (product.localizations || {})[text.locale] || {};
    const localization = { ...previous, name: text.name };
    for (const key of ["description", "price_hint"]) {
      if (text[key]) localization[key] = text[key];
      else delete localization[key];
    }
    edited.localizations[text.locale] = localization;
  }
  return edited;
}
