// Shopkeeper against a fake fetch: what it sends (paths, headers, query), the ETag cache, retries and their waits
// on an injected clock, change events, customer tokens.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryStorage, Shopkeeper } from "../index.js";
import { baseURL, customerInfo, fakeClock, fakeFetch, problem, publicKey } from "./support.js";

/** A client on a fake fetch answering `answers`, a fake clock and jitter 0. */
function client(answers, options = {}) {
  const fake = fakeFetch(answers);
  const clock = fakeClock();
  const storage = options.storage ?? new MemoryStorage();
  const shop = Shopkeeper.configure({
    apiKey: publicKey,
    baseURL: `${baseURL}/`,
    storage,
    fetch: fake.fetch,
    clock,
    random: () => 0,
    ...options,
  });
  return { shop, fake, clock, storage };
}

describe("configure", () => {
  it("refuses a secret key and a base URL that is not http(s)", () => {
    const storage = new MemoryStorage();
    assert.throws(() => Shopkeeper.configure({ apiKey: "sk_0123456789abcdefghijklmnopqrstuv", baseURL, storage }), {
      kind: "invalid_argument",
    });
    assert.throws(() => Shopkeeper.configure({ apiKey: publicKey, baseURL: "shop.example.com", storage }), {
      kind: "invalid_argument",
    });
  });

  it("asks for a storage where there is no localStorage", () => {
    assert.throws(() => Shopkeeper.configure({ apiKey: publicKey, baseURL }), { kind: "storage" });
  });
});

describe("customer info", () => {
  it("reads GET /v1/customers/{app_user_id} with the public key", async () => {
    const { shop, fake } = client([{ body: customerInfo("x"), headers: { ETag: '"c1"' } }]);
    const info = await shop.customerInfo();
    assert.equal(info.app_user_id, "x");
    const [request] = fake.seen;
    assert.equal(request.method, "GET");
    assert.equal(request.url.href, `${baseURL}/v1/customers/${shop.appUserID}`);
    assert.equal(request.headers.authorization, `Bearer ${publicKey}`);
    assert.equal(request.headers.accept, "application/json");
    assert.equal(request.headers["if-none-match"], undefined);
    assert.equal(request.headers["shopkeeper-customer-token"], undefined);
    assert.equal(request.headers["x-shopkeeper-nonce"], undefined);
  });

  it("percent-encodes the app user id as one path segment", async () => {
    const { shop, fake } = client([{ body: customerInfo("a/b c?d") }], { appUserID: "a/b c?d" });
    await shop.customerInfo();
    assert.equal(fake.seen[0].url.pathname, "/v1/customers/a%2Fb%20c%3Fd");
  });

  it("revalidates with If-None-Match and answers a 304 from the cache kept in storage", async () => {
    const info = customerInfo("x");
    const { shop, fake, storage } = client([
      { body: info, headers: { ETag: '"c1"' } },
      { status: 304, headers: { ETag: '"c1"' } },
    ]);
    assert.deepEqual(await shop.customerInfo(), info);
    assert.deepEqual(await shop.customerInfo(), info);
    assert.equal(fake.seen[1].headers["if-none-match"], '"c1"');
    // The next page (a new client on the same storage) revalidates the same entry.
    const next = client([{ status: 304, headers: { ETag: '"c1"' } }], { storage });
    assert.deepEqual(await next.shop.customerInfo(), info);
    assert.equal(next.fake.seen[0].headers["if-none-match"], '"c1"');
  });

  it("answers from the cache without asking under cache-first, and asks afresh under network-only", async () => {
    const { shop, fake } = client([
      { body: customerInfo("x"), headers: { ETag: '"c1"' } },
      { body: customerInfo("x"), headers: { ETag: '"c1"' } },
    ]);
    await shop.customerInfo({ fetchPolicy: "cache-first" });
    await shop.customerInfo({ fetchPolicy: "cache-first" });
    assert.equal(fake.seen.length, 1);
    await shop.customerInfo({ fetchPolicy: "network-only" });
    assert.equal(fake.seen.length, 2);
    assert.equal(fake.seen[1].headers["if-none-match"], undefined);
  });

  it("sends a customerinfo event for each change, not for the same info again", async () => {
    const id = "user_1";
    const bought = customerInfo(id, [{ product_id: "extra_garden", transaction_id: "GPA.1" }]);
    const { shop } = client(
      [
        { body: customerInfo(id), headers: { ETag: '"c1"' } },
        { status: 304, headers: { ETag: '"c1"' } },
        { body: bought, headers: { ETag: '"c2"' } },
        { body: customerInfo("someone_else") },
      ],
      { appUserID: id },
    );
    const events = [];
    shop.addEventListener("customerinfo", (event) => events.push(event.detail));
    await shop.customerInfo();
    await shop.customerInfo();
    await shop.customerInfo();
    await shop.customerInfo();
    assert.deepEqual(events, [customerInfo(id), bought]);
  });

  it("sends the customer token the callback mints for the customer the request names", async () => {
    const asked = [];
    const { shop, fake } = client([{ body: customerInfo("user_1") }], {
      appUserID: "user_1",
      customerToken: async (appUserID) => {
        asked.push(appUserID);
        return "eyJ.token.sig";
      },
    });
    await shop.customerInfo();
    assert.deepEqual(asked, ["user_1"]);
    assert.equal(fake.seen[0].headers["shopkeeper-customer-token"], "eyJ.token.sig");
  });

  it("fails as 401 customer_token_unavailable when the callback fails, without a request", async () => {
    const { shop, fake } = client([], {
      customerToken: async () => {
        throw new Error("the app's server is down");
      },
    });
    await assert.rejects(shop.customerInfo(), { kind: "server", code: "customer_token_unavailable", status: 401 });
    assert.equal(fake.seen.length, 0);
  });
});

describe("catalog", () => {
  it("asks GET /v1/catalog with the configured platform, version, build, variant and locale", async () => {
    const view = { platform: "play_store", build: "development", app_version: "2.0", locale: "de-AT", products: [] };
    const { shop, fake } = client([{ body: view, headers: { ETag: '"k1"' } }, { status: 304, headers: { ETag: '"k1"' } }], {
      platform: "play_store",
      appVersion: "2.0",
      build: "development",
      locale: "de-AT",
    });
    assert.deepEqual(await shop.catalog(), view);
    assert.deepEqual(await shop.catalog(), view);
    const query = Object.fromEntries(fake.seen[0].url.searchParams);
    assert.deepEqual(query, { platform: "play_store", app_version: "2.0", build: "development", locale: "de-AT" });
    assert.equal(fake.seen[0].url.pathname, "/v1/catalog");
    assert.equal(fake.seen[1].headers["if-none-match"], '"k1"');
  });

  it("defaults to the web's store, version 1.0 and distribution builds", async () => {
    const { shop, fake } = client([{ body: { products: [] } }]);
    await shop.catalog({ variant: "full" });
    const query = Object.fromEntries(fake.seen[0].url.searchParams);
    assert.deepEqual(query, { platform: "stripe", app_version: "1.0", build: "distribution", variant: "full" });
  });
});

describe("offerings", () => {
  /** An `OfferingsView` as GET /v1/offerings answers it. */
  const view = {
    current_offering_id: "germany",
    rule_id: "dach",
    offerings: [
      {
        offering_id: "germany",
        packages: [
          {
            package_id: "annual",
            product: {
              product_id: "pro_yearly",
              type: "auto_renewable",
              availability: "purchasable",
              store_product_id: "price_pro_yearly",
              entitlements: ["pro"],
              sort_order: 1,
              locale: "de",
              name: "Pro (jährlich)",
              screenshot_urls: [],
            },
          },
        ],
        paywall: { layout: "cards", colors: {}, image_urls: {}, locale: "de", title: "Pro", features: ["Alles"] },
      },
    ],
  };

  it("asks GET /v1/offerings for the current customer with the configured build and the country given", async () => {
    const { shop, fake } = client([{ body: view, headers: { ETag: '"o1"' } }, { status: 304, headers: { ETag: '"o1"' } }], {
      appUserID: "user_1",
      appVersion: "2.0",
      locale: "de-AT",
      customerToken: async () => "eyJ.token.sig",
    });
    assert.deepEqual(await shop.offerings({ country: "DE" }), view);
    assert.deepEqual(await shop.offerings({ country: "DE" }), view);
    assert.equal(fake.seen[0].url.pathname, "/v1/offerings");
    const query = Object.fromEntries(fake.seen[0].url.searchParams);
    assert.deepEqual(query, {
      app_user_id: "user_1",
      platform: "stripe",
      app_version: "2.0",
      build: "distribution",
      locale: "de-AT",
      country: "DE",
    });
    assert.equal(fake.seen[0].headers["shopkeeper-customer-token"], "eyJ.token.sig");
    assert.equal(fake.seen[1].headers["if-none-match"], '"o1"');
  });

  it("keeps one ETag entry per query: another country is asked without If-None-Match", async () => {
    const { shop, fake } = client([
      { body: view, headers: { ETag: '"o1"' } },
      { body: { ...view, current_offering_id: "standard", rule_id: undefined }, headers: { ETag: '"o2"' } },
    ]);
    await shop.offerings({ country: "DE", locale: "de" });
    const other = await shop.offerings({ country: "US", locale: "de", platform: "app_store", appVersion: "3.1" });
    assert.equal(other.current_offering_id, "standard");
    assert.equal(fake.seen[1].headers["if-none-match"], undefined);
    const query = Object.fromEntries(fake.seen[1].url.searchParams);
    assert.equal(query.platform, "app_store");
    assert.equal(query.app_version, "3.1");
    assert.equal(query.country, "US");
  });

  it("reports a refused query as the server's problem", async () => {
    const { shop } = client([problem(400, "invalid_query")]);
    await assert.rejects(shop.offerings({ country: "DEU" }), { kind: "server", code: "invalid_query", status: 400 });
  });
});

describe("retries", () => {
  it("retry 503 after Retry-After, then succeed", async () => {
    const { shop, fake, clock } = client([problem(503, "database_unavailable", { "Retry-After": "2" }), { body: customerInfo("x") }]);
    await shop.customerInfo();
    assert.equal(fake.seen.length, 2);
    assert.deepEqual(clock.sleeps, [2000]);
  });

  it("back off exponentially and give up after four tries with the last problem", async () => {
    const { shop, fake, clock } = client([
      problem(500, "internal_error"),
      problem(502, "upstream_unavailable"),
      new TypeError("fetch failed"),
      problem(504, "upstream_timeout"),
    ]);
    await assert.rejects(shop.customerInfo(), { kind: "server", code: "upstream_timeout", status: 504 });
    assert.equal(fake.seen.length, 4);
    // Jitter 0: half of 0.5, 1 and 2 seconds.
    assert.deepEqual(clock.sleeps, [250, 500, 1000]);
  });

  it("retry 408 and 429, cutting a long Retry-After to the longest wait", async () => {
    const { shop, clock } = client([
      problem(408, "request_timeout"),
      problem(429, "rate_limited", { "Retry-After": "60" }),
      { body: customerInfo("x") },
    ]);
    await shop.customerInfo();
    assert.deepEqual(clock.sleeps, [250, 8000]);
  });

  it("never retry another 4xx", async () => {
    for (const [status, code] of [
      [400, "invalid_query"],
      [401, "unauthorized"],
      [403, "customer_token_mismatch"],
      [404, "not_found"],
      [422, "validation_failed"],
    ]) {
      const { shop, fake, clock } = client([problem(status, code)]);
      await assert.rejects(shop.customerInfo(), { kind: "server", code, status });
      assert.equal(fake.seen.length, 1);
      assert.deepEqual(clock.sleeps, []);
    }
  });

  it("fail a broken connection as transport after the tries", async () => {
    const { shop, fake } = client([new TypeError("a"), new TypeError("b")], { retry: { maxAttempts: 2 } });
    await assert.rejects(shop.customerInfo(), (error) => error.kind === "transport" && error.code === null);
    assert.equal(fake.seen.length, 2);
  });

  it("fail an answer that is not JSON as decoding, without retrying", async () => {
    const { shop, fake } = client([{ body: "<html>" }]);
    await assert.rejects(shop.customerInfo(), { kind: "decoding" });
    assert.equal(fake.seen.length, 1);
  });
});
