// The report pages' range of UTC days, read from the route's query (js/pure/range.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lastDays, readRange } from "../js/pure/range.js";

const query = (text) => new URLSearchParams(text);
const today = "2026-11-28";

describe("readRange", () => {
  it("takes the days and the environment the query names", () => {
    assert.deepEqual(readRange(query("from=2026-03-01&to=2026-03-31&environment=sandbox"), 42, today), {
      from: "2026-03-01",
      to: "2026-03-31",
      environment: "sandbox",
      problem: null,
    });
  });
  it("defaults to the last 42 days up to today, in production", () => {
    assert.deepEqual(readRange(query(""), 42, today), { from: "2026-10-18", to: today, environment: "production", problem: null });
  });
  it("counts a default start back from the end the query names", () => {
    const range = readRange(query("to=2026-03-10"), 10, today);
    assert.equal(range.from, "2026-03-01");
    assert.equal(range.to, "2026-03-10");
  });
  it("goes to the default range, and says so, when a day is not a real date", () => {
    for (const text of ["from=2026-02-30&to=2026-03-01", "from=2026-03-01&to=yesterday", "from=1&to=2"]) {
      const range = readRange(query(text), 7, today);
      assert.equal(range.from, "2026-11-22", text);
      assert.equal(range.to, today, text);
      assert.match(range.problem, /real dates/, text);
    }
  });
  it("swaps a range given backwards, and says so", () => {
    const range = readRange(query("from=2026-03-31&to=2026-03-01"), 42, today);
    assert.equal(range.from, "2026-03-01");
    assert.equal(range.to, "2026-03-31");
    assert.match(range.problem, /swapped/);
  });
  it("takes a one-day range as it is", () => {
    const range = readRange(query("from=2026-03-01&to=2026-03-01"), 42, today);
    assert.deepEqual([range.from, range.to, range.problem], ["2026-03-01", "2026-03-01", null]);
  });
  it("refuses an environment it does not know", () => {
    assert.equal(readRange(query("environment=staging"), 42, today).environment, "production");
    assert.equal(readRange(query("environment=local_testing"), 42, today).environment, "local_testing");
  });
});

describe("lastDays", () => {
  it("ends on the day given and counts it", () => {
    assert.deepEqual(lastDays(7, "2026-03-03"), { from: "2026-02-25", to: "2026-03-03" });
    assert.deepEqual(lastDays(1, "2026-03-03"), { from: "2026-03-03", to: "2026-03-03" });
    assert.deepEqual(lastDays(365, "2026-12-31"), { from: "2026-01-01", to: "2026-12-31" });
  });
});
