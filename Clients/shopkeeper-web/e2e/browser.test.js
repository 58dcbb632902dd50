// The web client in a real headless Chromium against the real stack: imported by a <script type="module">'s
// import() from one origin that serves the page and passes the API on to the gateway; the browser's own fetch,
// localStorage, location and WebCrypto; the gateway's signed answers verified in the page.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { browserAvailable, serveOneOrigin, startBrowser } from "./browser.js";
import { appSigningKeys, buyOnPlay, createProduct, gateway, skip, stack } from "./stack.js";

const noBrowser = browserAvailable ? false : "no Debian chromium and chromedriver (scripts/lib/browser.sh installs them)";
if (noBrowser && stack !== null && process.env.SHOPKEEPER_WEB_REQUIRE_STACK === "1") throw new Error(noBrowser);

// Runs in the page: a client on the page's own origin, its answers' statuses listed.
const configure = `
  const { Shopkeeper } = await import("/web/index.js");
  const statuses = [];
  const shop = Shopkeeper.configure({
    apiKey,
    baseURL: location.origin,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    },
    platform: "play_store",
    appVersion: "2.0",
    signingKeys,
  });
`;

describe("the web client in a browser", { skip: skip || noBrowser }, () => {
  let site;
  let browser;
  before(async () => {
    site = await serveOneOrigin(gateway);
    browser = await startBrowser();
  });
  after(async () => {
    await browser?.quit();
    await site?.close();
  });

  it("reads, buys and waits for the purchase across page loads, with signed answers verified", async () => {
    const productID = await createProduct();
    const signingKeys = await appSigningKeys();
    const apiKey = stack.SHOPKEEPER_PUBLIC_KEY;
    await browser.open(`${site.origin}/web/e2e/page.html`);
    const first = await browser.run(
      `const [apiKey, signingKeys, productID] = args; ${configure}
      const catalog = await shop.catalog();
      await shop.catalog();
      const info = await shop.customerInfo();
      await shop.customerInfo();
      const { keepCheckout, purchaseIDs } = await import("/web/src/checkout.js");
      keepCheckout(localStorage, {
        session_id: "cs_browser", product_id: productID, app_user_id: shop.appUserID,
        known: purchaseIDs(info, productID), started_at: Date.now(),
      });
      return { appUserID: shop.appUserID, statuses, products: catalog.products.map((product) => product.product_id) };`,
      apiKey,
      signingKeys,
      productID,
    );
    assert.ok(first.products.includes(productID));
    assert.deepEqual(first.statuses, [200, 304, 200, 304]);
    assert.match(first.appUserID, /^anon_/);

    await buyOnPlay(productID, first.appUserID);
    // The store's success redirect: a new page load whose URL carries the session.
    await browser.open(`${site.origin}/web/e2e/page.html?session_id=cs_browser`);
    const returned = await browser.run(
      `const [apiKey, signingKeys, productID] = args; ${configure}
      const events = [];
      shop.addEventListener("customerinfo", (event) => events.push(event.detail.app_user_id));
      const info = await shop.completePurchase();
      return { appUserID: shop.appUserID, active: info.entitlements[productID]?.active, events };`,
      apiKey,
      signingKeys,
      productID,
    );
    assert.deepEqual(returned, { appUserID: first.appUserID, active: true, events: [first.appUserID] });

    // Under a key the app does not trust (a real Ed25519 key, not the gateway's), the same answers are refused.
    const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
    const stranger = Buffer.from(await crypto.subtle.exportKey("raw", pair.publicKey)).toString("base64");
    const refused = await browser.run(
      `const [apiKey, signingKeys] = args; ${configure}
      try { await shop.customerInfo(); return "taken"; } catch (error) { return error.kind; }`,
      apiKey,
      Object.fromEntries(Object.keys(signingKeys).map((keyID) => [keyID, stranger])),
    );
    assert.equal(refused, "untrusted_answer");
  });
});
