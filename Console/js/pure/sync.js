// The catalog page's "Last store sync" section: the last catalog sync (GET /v1/admin/catalog/sync/last) in words,
// and its diff as table rows. Pure: pages/catalog.js builds the markup.

import { dateTime, storeName, words } from "./format.js";

/** What each kind of difference is called on the page. */
const kindNames = {
  new_product: "New at the store",
  review_state: "Review state",
  price: "Price",
  deleted_at_store: "Deleted at the store",
};

/** The badge tone of each outcome. */
const outcomeTones = { applied: "good", kept: "warn", refused: "bad", proposed: "neutral" };

/** The sync in one line: which store, who started it, when, and how much of it was applied. */
export function syncSummary(sync) {
  const who = sync.trigger === "scheduled" ? "scheduled sync" : "manual sync";
  const mode = sync.dry_run ? "dry run, nothing applied" : `${sync.applied} of ${sync.changes.length} change(s) applied`;
  return `${storeName(sync.store)}, ${who}, ${dateTime(sync.synced_at)}: ${mode}`;
}

/** How many differences each outcome has, in a fixed order, leaving out those with none (`2 applied, 1 proposed`). */
export function outcomeCounts(sync) {
  const counts = new Map();
  for (const change of sync.changes) counts.set(change.outcome, (counts.get(change.outcome) || 0) + 1);
  return ["applied", "kept", "proposed", "refused"]
    .filter((outcome) => counts.has(outcome))
    .map((outcome) => `${counts.get(outcome)} ${outcome}`)
    .join(", ");
}

/** One difference as the table's cells: kind, product, what (field and territory), from, to, outcome, tone, detail. */
export function changeRow(change) {
  const what = change.territory ? `${words(change.field)} in ${change.territory}` : words(change.field || "product");
  return {
    id: change.id,
    kind: kindNames[change.kind] || words(change.kind),
    product: change.product_id,
    storeProductID: change.store_product_id,
    what,
    from: change.from ?? "—",
    to: change.to ?? "—",
    outcome: change.outcome,
    tone: outcomeTones[change.outcome] || "neutral",
    detail: change.detail || "",
  };
}

/** The differences as rows, the ones needing the operator first (proposed, refused), then by kind and id. */
export function changeRows(sync) {
  const order = { proposed: 0, refused: 1, kept: 2, applied: 3 };
  return [...sync.changes]
    .sort((a, b) => (order[a.outcome] ?? 9) - (order[b.outcome] ?? 9) || a.id.localeCompare(b.id))
    .map(changeRow);
}
