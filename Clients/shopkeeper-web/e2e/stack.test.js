// The web client against a real local stack (test-with-stack starts one with scripts/run and names its local.env in
// SHOPKEEPER_WEB_STACK_ENV): the real gateway, services, PostgreSQL and sandbox store, over real HTTP. Without a
// stack the tests are skipped, unless SHOPKEEPER_WEB_REQUIRE_STACK=1 (as test-with-stack sets) makes that a
// failure. The only waits are the client's own (its retries and its bounded wait on return).

import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { MemoryStorage, Shopkeeper, isAnonymousID } from "../index.js";
import { keepCheckout, purchaseIDs } from "../src/checkout.js";

const envPath = process.env.SHOPKEEPER_WEB_STACK_ENV;
const stack = envPath
  ? Object.fromEntries(
      readFileSync(envPath, "utf8")
        .split("\n")
        .filter((line) => line.includes("="))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    )
  : null;
if (stack === null && process.env.SHOPKEEPER_WEB_REQUIRE_STACK === "1") {
  throw new Error("no stack: run Clients/shopkeeper-web/test-with-stack");
}
const skip = stack === null ? "no stack (Clients/shopkeeper-web/test-with-stack starts one)" : false;
const gateway = stack?.SHOPKEEPER_GATEWAY_URL ?? "";
const bundleID = stack?.SHOPKEEPER_DEMO_BUNDLE_ID ?? "com.shopkeeper.demo.garden";

/** A call with the secret key (what the developer's own server or the console does), answering the JSON. */
async function admin(method, path, body) {
  const response = await fetch(gateway + path, {
    method,
    headers: { Authorization: `Bearer ${stack.SHOPKEEPER_SECRET_KEY}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path} answered ${response.status}: ${text}`);
  return text === "" ? null : JSON.parse(text);
}

/** A new non-consumable of the demo app, approved and sold on both stores. */
async function createProduct() {
  const id = `web_${randomUUID().slice(0, 8)}`;
  await admin("PUT", `/v1/admin/products/${id}`, {
    product_id: id,
    type: "non_consumable",
    review_state: "approved",
    cleared_for_sale: true,
    store_product_ids: { app_store: `${bundleID}.${id}`, play_store: id },
    entitlements: [id],
    default_locale: "en",
    localizations: { en: { name: id } },
  });
  return id;
}

/** Shopkeeper's app account token of an app user id (RFC 9562 version 5 UUID in its namespace, as ShopkeeperKit's). */
function appAccountToken(appUserID) {
  const namespace = Buffer.from("6f9e2b431c5d4a8e9b173e52a4c0d961", "hex");
  const digest = createHash("sha1").update(Buffer.concat([namespace, Buffer.from(appUserID, "utf8")])).digest();
  digest[6] = (digest[6] & 0x0f) | 0x50;
  digest[8] = (digest[8] & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Buys the product at the sandbox's Google Play and presents the purchase token to Shopkeeper
 * (`POST /v1/purchases` with the public key), as an Android phone with ShopkeeperKit does: the web cannot sell
 * through Stripe before the server does. Answers the order id.
 */
async function buyOnPlay(productID, appUserID) {
  const bought = await fetch(`${stack.SHOPKEEPER_SANDBOX_URL}/sandbox/google/purchases`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      package_name: bundleID,
      product_id: productID,
      type: "product",
      quantity: 1,
      obfuscated_account_id: appAccountToken(appUserID),
    }),
  });
  const purchase = await bought.json();
  assert.ok(bought.ok, `the sandbox store answered ${bought.status}: ${JSON.stringify(purchase)}`);
  const presented = await fetch(`${gateway}/v1/purchases`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.SHOPKEEPER_PUBLIC_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      app_user_id: appUserID,
      purchase_token: purchase.purchase_token,
      product_id: productID,
      purchase_kind: "product",
    }),
  });
  assert.equal(presented.status, 200, await presented.text());
  return purchase.order_id;
}

/** Real fetch, with the statuses it answered listed. */
function recordingFetch() {
  const statuses = [];
  const recorded = async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
  return { fetch: recorded, statuses };
}

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

describe("signed answers from the real gateway", { skip }, () => {
  it("verify with the app's published key, and are refused under a key the app does not trust", async () => {
    let { keys } = await admin("GET", "/v1/admin/answer-signing");
    if (!keys.some((key) => key.active)) keys = [await admin("POST", "/v1/admin/answer-signing/keys")];
    const signingKeys = Object.fromEntries(keys.map((key) => [key.key_id, key.public_key]));
    const recorder = recordingFetch();
    const options = { apiKey: stack.SHOPKEEPER_PUBLIC_KEY, baseURL: gateway, appUserID: `web signed/${randomUUID()}` };
    const shop = Shopkeeper.configure({ ...options, storage: new MemoryStorage(), fetch: recorder.fetch, signingKeys });
    const info = await shop.customerInfo();
    assert.deepEqual(await shop.customerInfo(), info);
    await shop.catalog({ platform: "app_store", appVersion: "2.0", locale: "de-AT" });
    assert.deepEqual(recorder.statuses, [200, 304, 200]);

    const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
    const stranger = Buffer.from(await crypto.subtle.exportKey("raw", pair.publicKey)).toString("base64");
    const forKeys = Object.fromEntries(keys.map((key) => [key.key_id, stranger]));
    const fooled = Shopkeeper.configure({ ...options, storage: new MemoryStorage(), signingKeys: forKeys });
    await assert.rejects(fooled.customerInfo(), { kind: "untrusted_answer" });
  });
});

describe("browsers on another origin", { skip }, () => {
  // scripts/run lets http://localhost:3000 call the gateway (SHOPKEEPER_CORS_ORIGINS).
  const preflight = (headers) =>
    fetch(`${gateway}/v1/customers/anyone`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:3000",
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
      headers: { Origin: "http://localhost:3000", Authorization: `Bearer ${stack.SHOPKEEPER_PUBLIC_KEY}` },
    });
    const exposed = (answer.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase();
    assert.ok(exposed.includes("etag") && exposed.includes("retry-after"), exposed);
  });

  it(
    "may send X-Shopkeeper-Nonce and read X-Shopkeeper-Signature (signed answers in a browser)",
    { todo: "the gateway's CORS (Services/Gateway/Middleware/CORSMiddleware.swift) allows neither yet" },
    async () => {
      const response = await preflight("authorization, x-shopkeeper-nonce");
      assert.ok((response.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase().includes("x-shopkeeper-nonce"));
      const answer = await fetch(`${gateway}/v1/customers/anyone`, {
        headers: { Origin: "http://localhost:3000", Authorization: `Bearer ${stack.SHOPKEEPER_PUBLIC_KEY}` },
      });
      const exposed = (answer.headers.get("Access-Control-Expose-Headers") ?? "").toLowerCase();
      assert.ok(exposed.includes("x-shopkeeper-signature"), exposed);
    },
  );
});

// The checkout operation is being added to the server (issue 37); until docs/openapi.yaml holds it, this is skipped.
const contract = readFileSync(fileURLToPath(new URL("../../../docs/openapi.yaml", import.meta.url)), "utf8");
const noCheckout = contract.includes("/v1/customers/{app_user_id}/checkout:")
  ? skip
  : "POST /v1/customers/{app_user_id}/checkout is not in docs/openapi.yaml yet";

describe("buying through the store's checkout", { skip: noCheckout }, () => {
  it("asks the server for a checkout session and goes to its page", async () => {
    const productID = await createProduct();
    const assigned = [];
    const shop = Shopkeeper.configure({
      apiKey: stack.SHOPKEEPER_PUBLIC_KEY,
      baseURL: gateway,
      storage: new MemoryStorage(),
      assign: (url) => assigned.push(url),
    });
    const session = await shop.purchase(productID, {
      successURL: "http://localhost:3000/thanks?session_id={CHECKOUT_SESSION_ID}",
      cancelURL: "http://localhost:3000/shop",
    });
    assert.ok(session.session_id.length > 0);
    assert.deepEqual(assigned, [session.checkout_url]);
    assert.ok(new URL(session.checkout_url));
  });
});
