// The web client in Node against a real local stack (e2e/stack.js): the real gateway, services, PostgreSQL and
// sandbox store, over real HTTP. The only waits are the client's own (its retries and its bounded wait on return).

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { MemoryStorage, Shopkeeper, isAnonymousID } from "../index.js";
import { keepCheckout, purchaseIDs } from "../src/checkout.js";
import { appSigningKeys, buyOnPlay, createProduct, gateway, recordingFetch, skip, stack } from "./stack.js";

describe("the web client against a real stack", { skip }, () => {
  it("shows the catalog, revalidates customer info, buys, waits for the purchase, logs in and out", async () => {
    const productID = await createProduct();
    const storage = new MemoryStorage();
    const recorder = recordingFetch();
    const shop = Shopkeeper.configure({
      apiKey: stack.SHOPKEEPER_PUBLIC_KEY,
      baseURL: gateway,
      storage,
      fetch: recorder.fetch,
      platform: "play_store",
      appVersion: "2.0",
    });
    const anonymous = shop.appUserID;
    assert.ok(isAnonymousID(anonymous));

    const catalog = await shop.catalog();
    assert.ok(catalog.products.some((product) => product.product_id === productID));
    assert.deepEqual(await shop.catalog(), catalog);
    assert.deepEqual(recorder.statuses.splice(0), [200, 304]);

    const events = [];
    shop.addEventListener("customerinfo", (event) => events.push(event.detail));
    const before = await shop.customerInfo();
    assert.equal(before.app_user_id, anonymous);
    assert.deepEqual(before.entitlements, {});
    assert.deepEqual(await shop.customerInfo(), before);
    assert.deepEqual(recorder.statuses.splice(0), [200, 304]);

    // What purchase() keeps before it sends the browser to the checkout page (the Stripe checkout stands in as a
    // Google Play purchase here); then the return waits, with its backoff, until the purchase shows.
    const sessionID = `cs_${randomUUID()}`;
    keepCheckout(storage, {
      session_id: sessionID,
      product_id: productID,
      app_user_id: anonymous,
      known: purchaseIDs(before, productID),
      started_at: Date.now(),
    });
    const returned = shop.handleReturn(`https://garden.example/thanks?session_id=${sessionID}`);
    // Awaited below; a failure before then must not be an unhandled rejection.
    returned.catch(() => {});
    const orderID = await buyOnPlay(productID, anonymous);
    const bought = await returned;
    assert.equal(bought.entitlements[productID]?.active, true);
    assert.ok(purchaseIDs(bought, productID).includes(orderID));
    assert.equal(events.at(-1), bought);

    const user = `web_user_${randomUUID()}`;
    const loggedIn = await shop.logIn(user);
    assert.equal(shop.appUserID, user);
    assert.equal(loggedIn.app_user_id, user);
    assert.ok(loggedIn.aliases.includes(anonymous) && loggedIn.aliases.includes(user));
    assert.equal(loggedIn.entitlements[productID]?.active, true);

    shop.logOut();
    assert.ok(isAnonymousID(shop.appUserID) && shop.appUserID !== anonymous);
    assert.deepEqual((await shop.customerInfo()).entitlements, {});
    // The next page on the same storage is the same (new anonymous) customer.
    assert.equal(Shopkeeper.configure({ apiKey: stack.SHOPKEEPER_PUBLIC_KEY, baseURL: gateway, storage }).appUserID, shop.appUserID);
  });

  it("maps the server's problems to errors by their stable code", async () => {
    const shop = Shopkeeper.configure({ apiKey: stack.SHOPKEEPER_PUBLIC_KEY, baseURL: gateway, storage: new MemoryStorage() });
    await assert.rejects(shop.catalog({ platform: "play_store", appVersion: "two" }), {
      kind: "server",
      status: 400,
      code: "invalid_query",
    });
    const stranger = Shopkeeper.configure({
      apiKey: "pk_00000000000000000000000000000000",
      baseURL: gateway,
      storage: new MemoryStorage(),
    });
    await assert.rejects(stranger.customerInfo(), { kind: "server", status: 401 });
  });
});

describe("the demo shop's offerings (scripts/run seeds them)", { skip }, () => {
  /** Offering id to its packages as `package_id product_id store_product_id`. */
  const packages = (view) =>
    Object.fromEntries(
      view.offerings.map((offering) => [
        offering.offering_id,
        offering.packages.map((item) => `${item.package_id} ${item.product.product_id} ${item.product.store_product_id}`),
      ]),
    );

  it("serves the default `standard` offering, revalidated by ETag, and `germany` to German storefronts", async () => {
    const recorder = recordingFetch();
    const shop = Shopkeeper.configure({
      apiKey: stack.SHOPKEEPER_PUBLIC_KEY,
      baseURL: gateway,
      storage: new MemoryStorage(),
      fetch: recorder.fetch,
      appVersion: "2.0",
      locale: "en",
    });
    const standard = await shop.offerings();
    assert.equal(standard.current_offering_id, "standard");
    assert.equal(standard.rule_id, undefined);
    // The web sells through Stripe: the yearly service has no Stripe price, so its package is left out.
    assert.deepEqual(packages(standard), {
      standard: ["$monthly garden_club price_demo_garden_club", "$lifetime extra_garden price_demo_extra_garden"],
      germany: ["$monthly garden_club price_demo_garden_club"],
    });
    const paywall = standard.offerings.find((offering) => offering.offering_id === "standard")?.paywall;
    assert.equal(paywall?.locale, "en");
    assert.equal(paywall?.title, "Grow a rarer garden");
    assert.deepEqual(await shop.offerings(), standard);
    assert.deepEqual(recorder.statuses.splice(0), [200, 304]);

    const german = await shop.offerings({ platform: "play_store", country: "AT", locale: "de-AT" });
    assert.equal(german.current_offering_id, "germany");
    assert.equal(german.rule_id, "german_storefronts");
    assert.deepEqual(packages(german).germany, ["$annual service_year service_year", "$monthly garden_club garden_club"]);
    const translated = german.offerings.find((offering) => offering.offering_id === "standard")?.paywall;
    assert.equal(translated?.locale, "de");
    assert.equal(translated?.title, "Ein seltenerer Garten");
    assert.deepEqual(recorder.statuses.splice(0), [200]);
  });
});

describe("signed answers from the real gateway", { skip }, () => {
  it("verify with the app's published key, and are refused under a key the app does not trust", async () => {
    const signingKeys = await appSigningKeys();
    const recorder = recordingFetch();
    const options = { apiKey: stack.SHOPKEEPER_PUBLIC_KEY, baseURL: gateway, appUserID: `web signed/${randomUUID()}` };
    const shop = Shopkeeper.configure({ ...options, storage: new MemoryStorage(), fetch: recorder.fetch, signingKeys });
    const info = await shop.customerInfo();
    assert.deepEqual(await shop.customerInfo(), info);
    await shop.catalog({ platform: "app_store", appVersion: "2.0", locale: "de-AT" });
    assert.deepEqual(recorder.statuses, [200, 304, 200]);

    const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
    const stranger = Buffer.from(await crypto.subtle.exportKey("raw", pair.publicKey)).toString("base64");
    const forKeys = Object.fromEntries(Object.keys(signingKeys).map((keyID) => [keyID, stranger]));
    const fooled = Shopkeeper.configure({ ...options, storage: new MemoryStorage(), signingKeys: forKeys });
    await assert.rejects(fooled.customerInfo(), { kind: "untrusted_answer" });
  });
});

describe("browsers on another origin", { skip }, () => {
  // scripts/run lets its demo web shop's origin (http://localhost:3000 by default) call the gateway
  // (SHOPKEEPER_CORS_ORIGINS).
  const origin = new URL(stack?.SHOPKEEPER_SHOP_URL ?? "http://localhost:3000").origin;
  const preflight = (headers) =>
    fetch(`${gateway}/v1/customers/anyone`, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": headers,
      },
    });

  it("may send the headers the client sends", async () => {
    const response = await preflight("authorization, content-type, if-none-match, shopkeeper-customer-token");
    const allowed = (response.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase();
    for (const header of ["authorization", "content-type", "if-none-match", "shopkeeper-customer-token"]) {
      assert.ok(allowed.includes(header), `${header} is not in ${allowed}`);
    }
    const answer = await fetch(`${gateway}/v1/customers/anyone`, {
      headers: { Origin: origin, Authorization: `Bearer ${stack.SHOPKEEPER_PUBLIC_KEY}` },
    });
    const exposed = (answer.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase();
    assert.ok(exposed.includes("etag") && exposed.includes("retry-after"), exposed);
  });

  it("may send X-Shopkeeper-Nonce and read X-Shopkeeper-Signature (signed answers in a browser)", async () => {
    const response = await preflight("authorization, x-shopkeeper-nonce");
    assert.ok((response.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase().includes("x-shopkeeper-nonce"));
    const answer = await fetch(`${gateway}/v1/customers/anyone`, {
      headers: { Origin: origin, Authorization: `Bearer ${stack.SHOPKEEPER_PUBLIC_KEY}` },
    });
    const exposed = (answer.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase();
    assert.ok(exposed.includes("x-shopkeeper-signature"), exposed);
  });
});

describe("buying on the web through Stripe's checkout (the sandbox store's)", { skip }, () => {
  it("sends the customer to the checkout, and on return waits until the paid purchase shows", async () => {
    const productID = await createProduct({ stripePrice: `price_${randomUUID().slice(0, 8)}` });
    const assigned = [];
    const storage = new MemoryStorage();
    const shop = Shopkeeper.configure({
      apiKey: stack.SHOPKEEPER_PUBLIC_KEY,
      baseURL: gateway,
      storage,
      assign: (url) => assigned.push(url),
    });
    const session = await shop.purchase(productID, {
      successURL: "http://localhost:3000/thanks?session_id={CHECKOUT_SESSION_ID}",
      cancelURL: "http://localhost:3000/shop",
    });
    assert.deepEqual(assigned, [session.checkout_url]);
    const page = await fetch(session.checkout_url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form/);

    // A declined card pays nothing; Stripe's test card 4242... pays, as the hosted page's form would.
    const pay = (card) =>
      fetch(`${stack.SHOPKEEPER_SANDBOX_URL}/sandbox/stripe/checkout/${session.session_id}/pay`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ card }),
      });
    assert.equal((await pay("4000000000000002")).status, 402);
    const paid = await pay("4242424242424242");
    assert.equal(paid.status, 200, await paid.text());

    // Stripe's webhook reaches the gateway, the verifier reads the session back from Stripe and grants it.
    const bought = await shop.handleReturn(`http://localhost:3000/thanks?session_id=${session.session_id}`);
    assert.equal(bought.app_user_id, shop.appUserID);
    assert.equal(bought.entitlements[productID]?.active, true);
  });
});
