// What the end-to-end tests share: the local stack (test-with-stack starts one with scripts/run and names its
// local.env in SHOPKEEPER_WEB_STACK_ENV), admin calls with its secret key, and a purchase at its sandbox store.
// Without a stack the tests are skipped, unless SHOPKEEPER_WEB_REQUIRE_STACK=1 (as test-with-stack sets) makes that
// a failure.

import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";

const envPath = process.env.SHOPKEEPER_WEB_STACK_ENV;
export const stack = envPath
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
export const skip = stack === null ? "no stack (Clients/shopkeeper-web/test-with-stack starts one)" : false;
export const gateway = stack?.SHOPKEEPER_GATEWAY_URL ?? "";
export const bundleID = stack?.SHOPKEEPER_DEMO_BUNDLE_ID ?? "com.shopkeeper.demo.garden";

/** A call with the secret key (what the developer's own server or the console does), answering the JSON. */
export async function admin(method, path, body) {
  const response = await fetch(gateway + path, {
    method,
    headers: { Authorization: `Bearer ${stack.SHOPKEEPER_SECRET_KEY}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path} answered ${response.status}: ${text}`);
  return text === "" ? null : JSON.parse(text);
}

/**
 * The sandbox's active Stripe prices (the demo web shop's among them), as `PUT /sandbox/stripe/prices` takes them:
 * that call deactivates every price it does not list, so a test adding one lists these too.
 */
async function activeStripePrices() {
  const sandbox = stack.SHOPKEEPER_SANDBOX_URL;
  const listed = await fetch(`${sandbox}/sandbox/stripe/prices`);
  assert.ok(listed.ok, `GET /sandbox/stripe/prices answered ${listed.status}`);
  const { data } = await listed.json();
  return Promise.all(
    data
      .filter((price) => price.active)
      .map(async (price) => {
        const product = await fetch(`${sandbox}/stripe/v1/products/${price.product}`, {
          headers: { Authorization: "Bearer sk_test_shopkeeper_sandbox" },
        });
        assert.ok(product.ok, `GET /stripe/v1/products/${price.product} answered ${product.status}`);
        return {
          id: price.id,
          product: price.product,
          product_name: (await product.json()).name,
          unit_amount: price.unit_amount,
          currency: price.currency,
          lookup_key: price.lookup_key,
          recurring: price.recurring && { interval: price.recurring.interval, interval_count: price.recurring.interval_count },
          trial_period_days: price.recurring?.trial_period_days ?? null,
        };
      }),
  );
}

/**
 * A new non-consumable of the demo app, approved and sold on both app stores; with `stripePrice`, also on the web
 * through that Stripe price, which the sandbox store then sells at 4.99 USD besides the prices it already sells.
 * @param {{ stripePrice?: string }} [options]
 */
export async function createProduct(options = {}) {
  const id = `web_${randomUUID().slice(0, 8)}`;
  const storeProductIDs = { app_store: `${bundleID}.${id}`, play_store: id };
  if (options.stripePrice !== undefined) {
    storeProductIDs.stripe = options.stripePrice;
    const response = await fetch(`${stack.SHOPKEEPER_SANDBOX_URL}/sandbox/stripe/prices`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        prices: [
          ...(await activeStripePrices()),
          { id: options.stripePrice, product_name: id, unit_amount: 499, currency: "usd" },
        ],
      }),
    });
    assert.ok(response.ok, `PUT /sandbox/stripe/prices answered ${response.status}: ${await response.text()}`);
  }
  await admin("PUT", `/v1/admin/products/${id}`, {
    product_id: id,
    type: "non_consumable",
    review_state: "approved",
    cleared_for_sale: true,
    store_product_ids: storeProductIDs,
    entitlements: [id],
    default_locale: "en",
    localizations: { en: { name: id } },
  });
  return id;
}

/** Shopkeeper's app account token of an app user id (RFC 9562 version 5 UUID in its namespace, as ShopkeeperKit's). */
export function appAccountToken(appUserID) {
  const namespace = Buffer.from("6f9e2b431c5d4a8e9b173e52a4c0d961", "hex");
  const digest = createHash("sha1").update(Buffer.concat([namespace, Buffer.from(appUserID, "utf8")])).digest();
  digest[6] = (digest[6] & 0x0f) | 0x50;
  digest[8] = (digest[8] & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Buys the product at the sandbox's Google Play and presents the purchase token to Shopkeeper
 * (`POST /v1/purchases` with the public key), as an Android phone with ShopkeeperKit does: the purchase that the
 * web client's return then waits for, and the one a customer later sees on the web. Answers the order id.
 */
export async function buyOnPlay(productID, appUserID) {
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
export function recordingFetch() {
  const statuses = [];
  const recorded = async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
  return { fetch: recorded, statuses };
}

/** The app's answer signing keys (one made with the secret key if none is active), as `signingKeys` takes them. */
export async function appSigningKeys() {
  let { keys } = await admin("GET", "/v1/admin/answer-signing");
  if (!keys.some((key) => key.active)) keys = [await admin("POST", "/v1/admin/answer-signing/keys")];
  return Object.fromEntries(keys.map((key) => [key.key_id, key.public_key]));
}
