import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { changeRow, changeRows, outcomeCounts, syncSummary } from "../js/pure/sync.js";

const sync = {
  store: "google",
  dry_run: false,
  trigger: "scheduled",
  synced_at: "2026-11-28T03:00:00Z",
  applied: 2,
  changes: [
    { id: "review_state:beta", kind: "review_state", product_id: "beta", store_product_id: "beta", field: "review_state", from: "pending_developer_approval", to: "approved", outcome: "applied", detail: "Google Play: ACTIVE" },
    { id: "price:garden:US", kind: "price", product_id: "garden", store_product_id: "garden", field: "price", territory: "US", from: "2.99 USD", to: "3.49 USD", outcome: "applied" },
    { id: "new_product:seeds", kind: "new_product", product_id: "seeds", store_product_id: "seeds", to: "non_consumable, ACTIVE, 1 territories", outcome: "proposed" },
  ],
};

describe("sync", () => {
  it("sums a sync up in a line", () => {
    assert.equal(syncSummary(sync), "Google Play, scheduled sync, 2026-11-28 03:00 UTC: 2 of 3 change(s) applied");
    assert.equal(
      syncSummary({ ...sync, store: "apple", trigger: "manual", dry_run: true, applied: 0 }),
      "App Store, manual sync, 2026-11-28 03:00 UTC: dry run, nothing applied",
    );
  });

  it("counts the outcomes in a fixed order", () => {
    assert.equal(outcomeCounts(sync), "2 applied, 1 proposed");
    assert.equal(outcomeCounts({ ...sync, changes: [] }), "");
  });

  it("puts what needs the operator first", () => {
    assert.deepEqual(
      changeRows(sync).map((row) => row.id),
      ["new_product:seeds", "price:garden:US", "review_state:beta"],
    );
  });

  it("says what changed in words", () => {
    const price = changeRow(sync.changes[1]);
    assert.equal(price.kind, "Price");
    assert.equal(price.what, "price in US");
    assert.equal(price.from, "2.99 USD");
    assert.equal(price.tone, "good");
    const created = changeRow(sync.changes[2]);
    assert.equal(created.kind, "New at the store");
    assert.equal(created.what, "product");
    assert.equal(created.from, "—");
    assert.equal(created.tone, "neutral");
    assert.equal(changeRow(sync.changes[0]).what, "review state");
    assert.equal(changeRow(sync.changes[0]).detail, "Google Play: ACTIVE");
  });
});
