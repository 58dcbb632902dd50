// Logging in and out (ShopkeeperKit's id and alias rules) and buying on the web (checkout, the return, waiting for
// the purchase to show) and redemption codes, against a fake fetch and an injected clock.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryStorage, Shopkeeper, isAnonymousID } from "../index.js";
import { checkoutsKey } from "../src/checkout.js";
import { baseURL, customerInfo, fakeClock, fakeFetch, problem, publicKey } from "./support.js";

function client(answers, options = {}) {
  const fake = fakeFetch(answers);
  const clock = fakeClock();
  const assigned = [];
  const storage = options.storage ?? new MemoryStorage();
  const shop = Shopkeeper.configure({
    apiKey: publicKey,
    baseURL,
    storage,
    fetch: fake.fetch,
    clock,
    random: () => 1,
    assign: (url) => assigned.push(url),
    ...options,
  });
  return { shop, fake, clock, storage, assigned };
}

describe("logging in", () => {
  it("links the login id to the anonymous id first, then reads the user", async () => {
    const { shop, fake } = client([{ body: customerInfo("user_1") }, { body: customerInfo("user_1") }]);
    const anonymous = shop.appUserID;
    assert.ok(isAnonymousID(anonymous) && shop.isAnonymous);
    const info = await shop.logIn("user_1");
    assert.equal(info.app_user_id, "user_1");
    assert.equal(shop.appUserID, "user_1");
    assert.equal(shop.anonymousID, anonymous);
    assert.equal(shop.isAnonymous, false);
    const [link, read] = fake.seen;
    assert.equal(link.method, "POST");
    assert.equal(link.url.pathname, `/v1/customers/${anonymous}/aliases`);
    assert.equal(link.headers["content-type"], "application/json");
    assert.deepEqual(link.body, { alias: "user_1" });
    assert.equal(read.url.pathname, "/v1/customers/user_1");
  });

  for (const code of ["secret_key_required", "merge_needs_secret_key", "already_owned_by_other_customer"]) {
    it(`switches anyway when linking is the app server's job (${code})`, async () => {
      const status = code === "already_owned_by_other_customer" ? 409 : 403;
      const { shop } = client([problem(status, code), { body: customerInfo("user_1") }]);
      await shop.logIn("user_1");
      assert.equal(shop.appUserID, "user_1");
    });
  }

  it("stays anonymous when linking fails otherwise", async () => {
    const { shop } = client([problem(422, "validation_failed")]);
    const anonymous = shop.appUserID;
    await assert.rejects(shop.logIn("user_1"), { code: "validation_failed" });
    assert.equal(shop.appUserID, anonymous);
  });

  it("links nothing when switching between logged-in users or to the same id", async () => {
    const { shop, fake } = client([{ body: customerInfo("user_2") }, { body: customerInfo("user_2") }], {
      appUserID: "user_1",
    });
    await shop.logIn("user_2");
    await shop.logIn("user_2");
    assert.deepEqual(
      fake.seen.map((request) => `${request.method} ${request.url.pathname}`),
      ["GET /v1/customers/user_2", "GET /v1/customers/user_2"],
    );
  });

  it("refuses an empty id", async () => {
    const { shop } = client([]);
    await assert.rejects(shop.logIn(""), { kind: "invalid_argument" });
  });

  it("logs out to a new anonymous id, kept for the next page", () => {
    const { shop, storage } = client([], { appUserID: "user_1" });
    const before = shop.anonymousID;
    shop.logOut();
    assert.ok(isAnonymousID(shop.appUserID) && shop.isAnonymous);
    assert.notEqual(shop.appUserID, before);
    const next = Shopkeeper.configure({ apiKey: publicKey, baseURL, storage });
    assert.equal(next.appUserID, shop.appUserID);
  });
});

describe("buying on the web", () => {
  const urls = { successURL: "https://garden.example/thanks", cancelURL: "https://garden.example/shop" };
  const checkout = { checkout_url: "https://checkout.example/c/cs_test_1", session_id: "cs_test_1" };
  const owned = [{ product_id: "extra_garden", transaction_id: "GPA.old" }];

  it("asks for a checkout session, keeps it, and goes to the checkout page", async () => {
    const { shop, fake, assigned, storage } = client(
      [{ body: customerInfo("user_1", owned) }, { status: 201, body: checkout }],
      { appUserID: "user_1", customerToken: async () => "token" },
    );
    assert.deepEqual(await shop.purchase("extra_garden", urls), checkout);
    const post = fake.seen[1];
    assert.equal(post.method, "POST");
    assert.equal(post.url.pathname, "/v1/customers/user_1/checkout");
    assert.equal(post.headers["shopkeeper-customer-token"], "token");
    assert.deepEqual(post.body, {
      product_id: "extra_garden",
      success_url: urls.successURL,
      cancel_url: urls.cancelURL,
    });
    assert.deepEqual(assigned, [checkout.checkout_url]);
    const [kept] = JSON.parse(storage.getItem(checkoutsKey));
    assert.deepEqual(kept.known, ["GPA.old"]);
    assert.equal(kept.app_user_id, "user_1");
  });

  it("goes nowhere when the checkout is refused", async () => {
    const { shop, assigned } = client([{ body: customerInfo("user_1") }, problem(404, "product_not_found")], {
      appUserID: "user_1",
    });
    await assert.rejects(shop.purchase("nope", urls), { code: "product_not_found" });
    assert.deepEqual(assigned, []);
    await assert.rejects(shop.purchase("extra_garden", { successURL: urls.successURL }), { kind: "invalid_argument" });
  });

  it("on return, reads the customer's info with backoff until the new purchase shows", async () => {
    const bought = customerInfo("user_1", [...owned, { product_id: "extra_garden", transaction_id: "pi_new" }]);
    const { shop, fake, clock, storage } = client(
      [
        { body: customerInfo("user_1", owned), headers: { ETag: '"c1"' } },
        { status: 201, body: checkout },
        { status: 304, headers: { ETag: '"c1"' } },
        { status: 304, headers: { ETag: '"c1"' } },
        { body: bought, headers: { ETag: '"c2"' } },
      ],
      { appUserID: "user_1" },
    );
    await shop.purchase("extra_garden", urls);
    const events = [];
    shop.addEventListener("customerinfo", (event) => events.push(event.detail));
    const info = await shop.handleReturn(`${urls.successURL}?session_id=cs_test_1`);
    assert.deepEqual(info, bought);
    assert.deepEqual(events, [bought]);
    assert.equal(fake.remaining(), 0);
    // Jitter 1: the whole 1 and 2 seconds.
    assert.deepEqual(clock.sleeps, [1000, 2000]);
    assert.deepEqual(JSON.parse(storage.getItem(checkoutsKey)), []);
  });

  it("takes a purchase that names the session, even when the product was owned before", async () => {
    const known = { session_id: "cs_test_1", product_id: "coins", app_user_id: "user_1", known: ["cs_test_1"], started_at: 0 };
    const storage = new MemoryStorage();
    storage.setItem(checkoutsKey, JSON.stringify([known]));
    const { shop } = client([{ body: customerInfo("user_1", [{ product_id: "coins", transaction_id: "cs_test_1" }]) }], {
      appUserID: "user_1",
      storage,
    });
    const info = await shop.completePurchase({ url: `${urls.successURL}?session_id=cs_test_1` });
    assert.equal(info.app_user_id, "user_1");
  });

  it("gives up after the configured reads with purchase_not_confirmed, keeping the checkout", async () => {
    const answers = Array.from({ length: 3 }, () => ({ body: customerInfo("user_1", owned) }));
    const { shop, fake, clock, storage } = client(
      [{ body: customerInfo("user_1", owned) }, { status: 201, body: checkout }, ...answers],
      { appUserID: "user_1", confirm: { attempts: 3, baseDelay: 0.5, maxDelay: 1 } },
    );
    await shop.purchase("extra_garden", urls);
    await assert.rejects(shop.handleReturn(`${urls.successURL}?session_id=cs_test_1`), {
      kind: "purchase_not_confirmed",
    });
    assert.equal(fake.seen.length, 5);
    assert.deepEqual(clock.sleeps, [500, 1000]);
    assert.equal(JSON.parse(storage.getItem(checkoutsKey)).length, 1);
  });

  it("acts for the customer the checkout was for, and refuses a return it does not know", async () => {
    const storage = new MemoryStorage();
    const bought = customerInfo("user_1", [{ product_id: "extra_garden", transaction_id: "pi_1" }]);
    storage.setItem(
      checkoutsKey,
      JSON.stringify([{ session_id: "cs_1", product_id: "extra_garden", app_user_id: "user_1", known: [], started_at: 0 }]),
    );
    const { shop, fake } = client([{ body: bought }], { storage });
    await shop.handleReturn(`${urls.successURL}?session_id=cs_1`);
    assert.equal(fake.seen[0].url.pathname, "/v1/customers/user_1");
    assert.equal(shop.appUserID, "user_1");
    await assert.rejects(shop.handleReturn(`${urls.successURL}?session_id=cs_other`), { kind: "purchase_not_confirmed" });
    await assert.rejects(shop.handleReturn(urls.successURL), { kind: "invalid_argument" });
  });
});

describe("redemption codes", () => {
  it("issues a code for the visitor's anonymous id", async () => {
    const issued = { code: "K7QXM-3HWPA-9RZTD-C4NVB", expires_at: "2026-12-28T15:00:00Z" };
    const { shop, fake } = client([{ status: 201, body: issued }]);
    const answer = await shop.redemptionCode();
    assert.deepEqual(answer, issued);
    const [request] = fake.seen;
    assert.equal(request.method, "POST");
    assert.equal(request.url.pathname, `/v1/customers/${shop.anonymousID}/redemption-codes`);
    assert.equal(request.body, undefined);
  });

  it("passes the server's refusal on with its code", async () => {
    const { shop } = client([problem(403, "secret_key_required")]);
    await assert.rejects(shop.redemptionCode(), { code: "secret_key_required" });
  });

  it("refuses an answer without a code", async () => {
    const { shop } = client([{ status: 201, body: { expires_at: "2026-12-28T15:00:00Z" } }]);
    await assert.rejects(shop.redemptionCode(), { kind: "decoding" });
  });
});

describe("the customer portal", () => {
  const portal = { portal_url: "https://billing.example/p/session/bps_1" };

  it("asks for a portal session for the current customer and goes there", async () => {
    const { shop, fake, assigned } = client([{ status: 201, body: portal }], {
      appUserID: "user_1",
      customerToken: async () => "token",
    });
    assert.deepEqual(await shop.manageSubscriptions({ returnURL: "https://garden.example/account" }), portal);
    const [request] = fake.seen;
    assert.equal(request.method, "POST");
    assert.equal(request.url.pathname, "/v1/customers/user_1/portal");
    assert.deepEqual(request.body, { return_url: "https://garden.example/account" });
    assert.deepEqual(assigned, [portal.portal_url]);
  });

  it("passes on that the customer never bought on the web, and goes nowhere", async () => {
    const { shop, assigned } = client([problem(409, "no_stripe_customer")]);
    await assert.rejects(shop.manageSubscriptions({ returnURL: "https://garden.example/account" }), {
      code: "no_stripe_customer",
    });
    assert.deepEqual(assigned, []);
  });

  it("refuses a call without a return URL and an answer without a portal URL", async () => {
    const { shop } = client([{ status: 201, body: {} }]);
    await assert.rejects(shop.manageSubscriptions({}), { kind: "invalid_argument" });
    await assert.rejects(shop.manageSubscriptions({ returnURL: "https://garden.example/account" }), {
      kind: "decoding",
    });
  });
});
