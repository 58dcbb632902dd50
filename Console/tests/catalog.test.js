// The catalog pages' arithmetic (js/pure/catalog.js): the import's difference and the edited product.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  byID,
  canonical,
  clearedForSale,
  documentProducts,
  editedProduct,
  fieldChanges,
  importSummary,
  localizationsText,
  minVersionText,
  shortValue,
  storeIDsText,
} from "../js/pure/catalog.js";

describe("canonical", () => {
  it("writes equal objects alike whatever their keys' order", () => {
    assert.equal(canonical({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } }), '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    assert.equal(canonical({ a: 1, b: 2 }), canonical({ b: 2, a: 1 }));
  });
  it("keeps arrays in their order and names an absent value", () => {
    assert.notEqual(canonical([1, 2]), canonical([2, 1]));
    assert.equal(canonical(undefined), "(absent)");
    assert.equal(canonical("x"), '"x"');
  });
});

describe("fieldChanges", () => {
  const before = {
    product_id: "garden",
    sort_order: 1,
    localizations: { en: { name: "Garden", description: "Grow" }, fr: { name: "Jardin" } },
    entitlements: ["garden"],
  };
  it("names each changed leaf with both values, in order", () => {
    const after = structuredClone(before);
    after.localizations.en.name = "Garden+";
    after.entitlements = ["garden", "seeds"];
    delete after.sort_order;
    after.min_app_version = "2.0";
    assert.deepEqual(fieldChanges(before, after), [
      { name: "entitlements", before: ["garden"], after: ["garden", "seeds"] },
      { name: "localizations.en.name", before: "Garden", after: "Garden+" },
      { name: "min_app_version", before: undefined, after: "2.0" },
      { name: "sort_order", before: 1, after: undefined },
    ]);
  });
  it("finds nothing between equal products, keys in any order", () => {
    const reordered = { entitlements: ["garden"], localizations: { fr: { name: "Jardin" }, en: { description: "Grow", name: "Garden" } }, sort_order: 1, product_id: "garden" };
    assert.deepEqual(fieldChanges(before, reordered), []);
  });
  it("takes an object replaced by a value as one change", () => {
    assert.deepEqual(fieldChanges({ a: { b: 1 } }, { a: "x" }), [{ name: "a", before: { b: 1 }, after: "x" }]);
  });
  it("compares with a missing product as with an empty one", () => {
    assert.deepEqual(fieldChanges(undefined, { a: 1 }), [{ name: "a", before: undefined, after: 1 }]);
  });
  it("cuts long values to 160 characters and names absent ones", () => {
    assert.equal(shortValue(undefined), "(absent)");
    assert.equal(shortValue("a".repeat(300)).length, 160);
    assert.equal(shortValue({ b: 1, a: 2 }), '{"a":2,"b":1}');
  });
});

describe("the import", () => {
  it("reads a document's products, none when it has no list", () => {
    assert.deepEqual(documentProducts({ products: [{ product_id: "a" }] }), [{ product_id: "a" }]);
    assert.deepEqual(documentProducts({ products: "a" }), []);
    assert.deepEqual(documentProducts({}), []);
  });
  it("indexes products by id and says what an import does", () => {
    assert.equal(byID([{ product_id: "a", n: 1 }]).get("a").n, 1);
    assert.equal(
      importSummary({ created: ["a"], updated: ["b", "c"], deleted: [], unchanged: ["d"] }),
      "1 product(s) created, 2 updated, 0 deleted.",
    );
  });
});

describe("the catalog's cells", () => {
  it("takes a product without cleared_for_sale as cleared", () => {
    assert.equal(clearedForSale({}), true);
    assert.equal(clearedForSale({ cleared_for_sale: true }), true);
    assert.equal(clearedForSale({ cleared_for_sale: false }), false);
  });
  it("writes the minimum version with what older versions see", () => {
    assert.equal(minVersionText({}), "—");
    assert.equal(minVersionText({ min_app_version: "2.1" }), "2.1 (below: hide)");
    assert.equal(minVersionText({ min_app_version: "2.1", below_min_version: "requires_update" }), "2.1 (below: requires update)");
  });
  it("names the stores' ids and the localizations", () => {
    assert.equal(storeIDsText({ store_product_ids: { app_store: "com.a", play_store: "a" } }), "App Store: com.a; Google Play: a");
    assert.equal(storeIDsText({ store_product_ids: { stripe: "price_1" } }), "Stripe: price_1");
    assert.equal(storeIDsText({}), "none (free or included)");
    assert.equal(localizationsText({ localizations: { en: { name: "Garden" }, fr: { name: "Jardin" } } }), "en: Garden; fr: Jardin");
    assert.equal(localizationsText({}), "");
  });
});

describe("editedProduct", () => {
  const product = {
    product_id: "garden",
    type: "auto_renewable",
    review_state: "in_review",
    sort_order: 3,
    min_app_version: "1.0",
    store_product_ids: { app_store: "com.demo.garden" },
    localizations: { en: { name: "Garden", description: "Grow", price_hint: "$1", extra: "kept" }, fr: { name: "Jardin" } },
  };
  const edits = {
    review_state: "approved",
    cleared_for_sale: false,
    below_min_version: "requires_update",
    sort_order: "",
    min_app_version: "  ",
    grandfathered_below_version: " 0.9 ",
    localizations: [{ locale: "en", name: "Garden+", description: "", price_hint: "$2" }],
  };
  it("takes the form's values and keeps the fields the form does not show", () => {
    const edited = editedProduct(product, edits);
    assert.equal(edited.review_state, "approved");
    assert.equal(edited.cleared_for_sale, false);
    assert.equal(edited.below_min_version, "requires_update");
    assert.equal(edited.sort_order, 0);
    assert.equal(edited.type, "auto_renewable");
    assert.deepEqual(edited.store_product_ids, { app_store: "com.demo.garden" });
  });
  it("removes emptied versions and trims the others", () => {
    const edited = editedProduct(product, edits);
    assert.equal("min_app_version" in edited, false);
    assert.equal(edited.grandfathered_below_version, "0.9");
  });
  it("keeps only the form's locales, each with its unshown fields, an emptied text removed", () => {
    const edited = editedProduct(product, edits);
    assert.deepEqual(edited.localizations, { en: { name: "Garden+", price_hint: "$2", extra: "kept" } });
  });
  it("adds a new locale and reads a sort order as a number", () => {
    const edited = editedProduct(product, { ...edits, sort_order: "12", localizations: [{ locale: "de", name: "Garten" }] });
    assert.equal(edited.sort_order, 12);
    assert.deepEqual(edited.localizations, { de: { name: "Garten" } });
  });
  it("leaves the product it was given as it was", () => {
    const copy = structuredClone(product);
    editedProduct(product, edits);
    assert.deepEqual(product, copy);
  });
});
