// Numbers, money, sizes and UTC days as the console writes them (js/pure/format.js).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addDays,
  bytes,
  count,
  dateTime,
  day,
  daysBetween,
  isDay,
  money,
  storeName,
  truncate,
  words,
} from "../js/pure/format.js";

describe("count", () => {
  it("groups thousands and rounds to whole numbers", () => {
    assert.equal(count(1234567), "1,234,567");
    assert.equal(count(0), "0");
    assert.equal(count(-1200), "-1,200");
    assert.equal(count(2.5), "3");
  });
  it("writes a dash for no value", () => {
    assert.equal(count(null), "—");
    assert.equal(count(undefined), "—");
  });
});

describe("money", () => {
  it("writes milliunits in the currency's own decimals, with its code", () => {
    assert.equal(money(12340, "USD"), "USD\u00a012.34");
    assert.equal(money(1000000, "JPY"), "JPY\u00a01,000");
    assert.equal(money(2990, "EUR"), "EUR\u00a02.99");
  });
  it("keeps zero and negative amounts", () => {
    assert.equal(money(0, "USD"), "USD\u00a00.00");
    assert.equal(money(-1500, "EUR"), "-EUR\u00a01.50");
  });
  it("falls back to two decimals for a code Intl refuses", () => {
    assert.equal(money(1234, "US"), "US 1.23");
  });
  it("writes a dash when the amount or the currency is unknown", () => {
    assert.equal(money(null, "USD"), "—");
    assert.equal(money(undefined, "USD"), "—");
    assert.equal(money(100, ""), "—");
    assert.equal(money(100, null), "—");
  });
});

describe("bytes", () => {
  it("uses the largest unit under 1024, with one decimal past bytes", () => {
    assert.equal(bytes(0), "0 B");
    assert.equal(bytes(1023), "1023 B");
    assert.equal(bytes(1024), "1.0 KB");
    assert.equal(bytes(1536), "1.5 KB");
    assert.equal(bytes(3 * 1024 ** 3), "3.0 GB");
  });
  it("stops at terabytes", () => {
    assert.equal(bytes(5 * 1024 ** 5), "5120.0 TB");
  });
  it("writes a dash for no value", () => {
    assert.equal(bytes(null), "—");
  });
});

describe("dates in UTC", () => {
  it("writes an instant as its UTC minute", () => {
    assert.equal(dateTime("2026-03-01T23:59:59Z"), "2026-03-01 23:59 UTC");
    assert.equal(dateTime("2026-03-01T23:30:00-02:00"), "2026-03-02 01:30 UTC");
  });
  it("does not depend on the machine's time zone", () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = "America/Los_Angeles";
      assert.equal(dateTime("2026-03-01T01:30:00Z"), "2026-03-01 01:30 UTC");
      assert.equal(day(new Date("2026-03-01T01:30:00Z")), "2026-03-01");
      process.env.TZ = "Pacific/Kiritimati";
      assert.equal(day("2026-02-28T23:00:00Z"), "2026-02-28");
      assert.equal(addDays("2026-03-28", 2), "2026-03-30");
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
  it("writes a dash for no instant and an unreadable one as it is", () => {
    assert.equal(dateTime(""), "—");
    assert.equal(dateTime(null), "—");
    assert.equal(dateTime("soon"), "soon");
  });
  it("moves a day across months, years and leap days", () => {
    assert.equal(addDays("2026-01-31", 1), "2026-02-01");
    assert.equal(addDays("2026-01-01", -1), "2025-12-31");
    assert.equal(addDays("2028-02-28", 1), "2028-02-29");
    assert.equal(addDays("2026-02-28", 1), "2026-03-01");
    assert.equal(addDays("2026-03-10", 0), "2026-03-10");
  });
  it("lists every day of a range, both ends included", () => {
    assert.deepEqual(daysBetween("2026-02-27", "2026-03-02"), ["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]);
    assert.deepEqual(daysBetween("2026-03-02", "2026-03-02"), ["2026-03-02"]);
    assert.deepEqual(daysBetween("2026-03-02", "2026-03-01"), []);
  });
  it("lists at most 1000 days", () => {
    const days = daysBetween("2020-01-01", "2030-01-01");
    assert.equal(days.length, 1000);
    assert.equal(days[999], "2022-09-26");
  });
  it("tells a real day from a look-alike", () => {
    assert.equal(isDay("2026-03-01"), true);
    assert.equal(isDay("2028-02-29"), true);
    assert.equal(isDay("2026-02-29"), false);
    assert.equal(isDay("2026-13-01"), false);
    assert.equal(isDay("2026-3-1"), false);
    assert.equal(isDay("2026-03-01T00:00:00Z"), false);
    assert.equal(isDay(""), false);
    assert.equal(isDay(null), false);
  });
});

describe("words", () => {
  it("names the stores as people do", () => {
    assert.equal(storeName("app_store"), "App Store");
    assert.equal(storeName("google"), "Google Play");
    assert.equal(storeName("stripe"), "Stripe");
    assert.equal(storeName("amazon"), "amazon");
    assert.equal(storeName(null), "—");
  });
  it("writes snake_case as words", () => {
    assert.equal(words("billing_retry_period"), "billing retry period");
    assert.equal(words(0), "0");
    assert.equal(words(null), "—");
  });
  it("cuts long text with an ellipsis, within the length", () => {
    assert.equal(truncate("abcdef", 4), "abc…");
    assert.equal(truncate("abcd", 4), "abcd");
    assert.equal(truncate("", 4), "");
  });
});
