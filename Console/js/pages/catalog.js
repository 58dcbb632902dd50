// Catalog: the app's products with their review state, whether they are cleared for sale, their minimum app version
// and localizations (GET /v1/admin/products); each links to its edit page, and the catalog can be exported or a
// catalog document imported (with a dry run first). Below, the last sync with a store and its diff
// (GET /v1/admin/catalog/sync/last), manual or scheduled.

import { ApiError, get, segment } from "../api.js";
import { h, append, badge, link, pageHeading, replace, table } from "../dom.js";
import { clearedForSale, localizationsText, minVersionText, storeIDsText } from "../pure/catalog.js";
import { words } from "../pure/format.js";
import { mayCall } from "../pure/roles.js";
import { changeRows, outcomeCounts, syncSummary } from "../pure/sync.js";

const reviewTones = { approved: "good", rejected: "bad", removed: "bad", in_review: "warn", waiting_for_review: "warn" };

// Data.

/** The products, the catalog document the export downloads, and the last store sync (`null` before the first). */
async function load() {
  const [answer, exported, lastSync] = await Promise.all([get("/v1/admin/products"), get("/v1/admin/catalog"), loadLastSync()]);
  return { products: answer.products, exported, lastSync };
}

/** The last store sync; `null` when none has run (`404 sync_not_found`). */
async function loadLastSync() {
  try {
    return await get("/v1/admin/catalog/sync/last");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** The "Last store sync" section: what ran, and every difference with its outcome. */
function syncSection(sync) {
  if (!sync) {
    return h(
      "section",
      { class: "last-sync" },
      h("h2", { text: "Last store sync" }),
      h("p", { class: "empty", text: "No sync with App Store Connect or Google Play has run yet (shopkeeper catalog sync --store apple|google)." }),
    );
  }
  return h(
    "section",
    { class: "last-sync" },
    h("h2", { text: "Last store sync" }),
    h("p", { class: "sync-summary", text: syncSummary(sync) }),
    table(
      ["Difference", "Product", "What", "Catalog", "Store", "Outcome", "Detail"],
      changeRows(sync).map((row) =>
        h(
          "tr",
          { dataset: { change: row.id } },
          h("td", { text: row.kind }),
          h("th", { scope: "row" }, h("code", { text: row.product })),
          h("td", { text: row.what }),
          h("td", { text: row.from }),
          h("td", { text: row.to }),
          h("td", { class: "outcome" }, badge(row.outcome, row.tone)),
          h("td", { text: row.detail }),
        ),
      ),
      { caption: outcomeCounts(sync) || "No differences: the catalog agrees with the store.", className: "sync-changes" },
    ),
  );
}

// Markup.

/** The link to a product's page: "Edit" for a role that may change it, "View" (read only) for the others. */
function productLink(id, canEdit) {
  const verb = canEdit ? "Edit" : "View";
  return link(`/catalog/${segment(id)}`, verb, { "aria-label": `${verb} ${id}` });
}

export async function render(section, { session } = {}) {
  const { products, exported, lastSync } = await load();
  const role = session && session.role;
  const canImport = mayCall(role, "PUT", "/v1/admin/catalog");
  const download = h("a", {
    class: "button",
    download: "catalog.json",
    href: URL.createObjectURL(new Blob([JSON.stringify(exported, null, 2)], { type: "application/json" })),
    text: "Export catalog (JSON)",
  });
  replace(
    section,
    pageHeading("Catalog"),
    h("p", { class: "actions" }, canImport ? link("/catalog/import", "Import a catalog document", { class: "button primary" }) : null, download),
  );
  append(
    section,
    table(
      ["Product", "Type", "Review", "Cleared for sale", "Minimum version", "Store ids", "Localizations", ""],
      products.map((product) =>
        h(
          "tr",
          { dataset: { product: product.product_id } },
          h("th", { scope: "row" }, h("code", { text: product.product_id })),
          h("td", { text: words(product.type) }),
          h("td", { class: "review-state" }, badge(words(product.review_state), reviewTones[product.review_state] || "neutral")),
          h("td", { class: "cleared", text: clearedForSale(product) ? "yes" : "no" }),
          h("td", { class: "min-version" }, minVersionText(product)),
          h("td", {}, storeIDsText(product)),
          h("td", { class: "localizations" }, localizationsText(product)),
          h("td", {}, productLink(product.product_id, mayCall(role, "PUT", `/v1/admin/products/${segment(product.product_id)}`))),
        ),
      ),
      { caption: `${products.length} product(s)`, className: "products" },
    ),
    syncSection(lastSync),
  );
}
