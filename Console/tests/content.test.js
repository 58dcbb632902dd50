// The content page's figures from the content report (js/pure/content.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contentQuery, contentTiles, contentTotals, downloadsPerDay, versionFigures } from "../js/pure/content.js";

describe("content figures", () => {
  it("asks for the whole range at once, without an environment", () => {
    assert.deepEqual(contentQuery({ from: "2026-03-01", to: "2026-03-31", environment: "sandbox" }), {
      from: "2026-03-01",
      to: "2026-03-31",
      limit: 100000,
    });
  });
  it("counts zeros when the report has no totals", () => {
    assert.deepEqual(contentTotals({ totals: [] }), { downloads: 0, redownloads: 0, devices: 0, bytes_sent: 0 });
    assert.equal(contentTotals({ totals: [{ downloads: 7 }] }).downloads, 7);
  });
  it("writes the tiles' counts and the bytes sent in a unit", () => {
    assert.deepEqual(contentTiles({ downloads: 1234, redownloads: 2, devices: 0, bytes_sent: 3 * 1024 * 1024 }), [
      ["downloads", "File downloads", 1234, "1,234"],
      ["redownloads", "Re-downloads", 2, "2"],
      ["devices", "Devices", 0, "0"],
      ["bytes_sent", "Sent", 3145728, "3.0 MB"],
    ]);
  });
  it("gives downloads per day, 0 on a day the report does not list", () => {
    const rows = [
      { day: "2026-03-02", downloads: 4 },
      { day: "2026-02-27", downloads: 9 },
    ];
    assert.deepEqual(downloadsPerDay(rows, ["2026-03-01", "2026-03-02"]), [0, 4]);
    assert.deepEqual(downloadsPerDay([], []), []);
  });
  it("finds a version's row by product and version, an empty one when there is none", () => {
    const figuresOf = versionFigures([
      { product_id: "garden", version: 2, downloads: 5 },
      { product_id: "garden", version: 3, downloads: 1 },
    ]);
    assert.equal(figuresOf("garden", 2).downloads, 5);
    assert.equal(figuresOf("garden", 3).downloads, 1);
    assert.deepEqual(figuresOf("seeds", 2), {});
  });
});
