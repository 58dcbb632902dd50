// The demo web shop (demo/, served by scripts/run at SHOPKEEPER_SHOP_URL) in a real headless Chromium against the
// real stack: log in, buy the demo's extra garden through the sandbox's Stripe checkout (a declined card first, then
// 4242...), come back, and see the entitlement in the page, through the public API and in ShopkeeperKit's Linux
// example (its sandbox client) for the same app user id. Every wait is for a condition.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { browserAvailable, startBrowser } from "./browser.js";
import { gateway, skip, stack } from "./stack.js";

const required = stack !== null && process.env.SHOPKEEPER_WEB_REQUIRE_STACK === "1";
const noBrowser = browserAvailable ? false : "no Debian chromium and chromedriver (scripts/lib/browser.sh installs them)";
if (noBrowser && required) throw new Error(noBrowser);
const shopURL = stack?.SHOPKEEPER_SHOP_URL;
if (shopURL === undefined && required) throw new Error("the stack's local.env has no SHOPKEEPER_SHOP_URL");
// ShopkeeperKit's Linux example (test-with-stack builds it and names it here).
const kitDemo = process.env.SHOPKEEPER_WEB_KIT_DEMO;
if (kitDemo === undefined && required) throw new Error("SHOPKEEPER_WEB_KIT_DEMO is not set (test-with-stack sets it)");
const noShop = shopURL === undefined ? "the stack runs no demo web shop" : false;

/** What the public API says the customer owns (the app's public key, as any client reads it). */
async function customer(appUserID) {
  const response = await fetch(`${gateway}/v1/customers/${encodeURIComponent(appUserID)}`, {
    headers: { Authorization: `Bearer ${stack.SHOPKEEPER_PUBLIC_KEY}` },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

describe("the demo web shop in a browser", { skip: skip || noBrowser || noShop }, () => {
  let browser;
  before(async () => {
    browser = await startBrowser();
  });
  after(async () => {
    await browser?.quit();
  });

  /**
   * Polls `condition` (an expression evaluated in the current page) until it is truthy, for at most 90 s: a page
   * that is navigating answers nothing for a moment, which counts as not yet. Answers the expression's value.
   */
  async function until(condition, what) {
    const deadline = Date.now() + 90_000;
    let last = null;
    for (;;) {
      try {
        const value = await browser.run(`return ${condition};`);
        if (value) return value;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline) {
        const page = await browser.run("return location.href + ' ' + document.body.innerText").catch(String);
        throw new Error(`waited 90 s for ${what}; the page: ${page}${last ? `; last error: ${last.message}` : ""}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Types a card number into the sandbox's Stripe checkout page and pays. */
  async function pay(card) {
    await until(`location.pathname.startsWith("/stripe/pay/") && document.getElementById("card")`, "the checkout page");
    await browser.run(
      `document.getElementById("card").value = args[0]; document.querySelector("form").requestSubmit();`,
      card,
    );
  }

  it("buys a non-consumable with 4242..., after a declined card; the app's kit sees it for the same user", async () => {
    const user = `web_demo_${randomUUID().slice(0, 8)}`;
    await browser.open(shopURL);
    await until(`document.body.dataset.state === "ready"`, "the shop to be ready");
    const products = await browser.run(
      `return [...document.querySelectorAll("#products li")].map((li) => [li.dataset.productId,
        li.querySelector(".price").textContent]);`,
    );
    assert.deepEqual(
      products.find(([id]) => id === "extra_garden"),
      ["extra_garden", "$2.99"],
      JSON.stringify(products),
    );

    await browser.run(
      `document.getElementById("user").value = args[0]; document.getElementById("log-in").requestSubmit();`,
      user,
    );
    await until(
      `document.getElementById("app-user-id").textContent === ${JSON.stringify(user)} &&
        document.body.dataset.state === "ready"`,
      "the log-in",
    );

    await browser.run(`document.querySelector('button.buy[data-product-id="extra_garden"]').click();`);
    // The sandbox's Stripe Checkout, at the demo's Stripe price (sandbox connect registered it: the App Store's USD).
    const amount = await until(
      `location.pathname.startsWith("/stripe/pay/") && document.querySelector(".amount")?.textContent`,
      "the checkout page",
    );
    assert.equal(amount.trim(), "2.99 USD");
    // Stripe's test card that is declined: the checkout page says so and stays; nothing is granted.
    await pay("4000 0000 0000 0002");
    const declined = await until(
      `location.pathname.startsWith("/stripe/pay/") && document.querySelector("[role=alert]")?.textContent`,
      "the decline",
    );
    assert.match(declined, /declined/i);
    assert.equal((await customer(user)).entitlements.extra_garden?.active ?? false, false);

    // 4242...: paid; the checkout sends the browser back to the shop, which waits until the purchase shows (the
    // sandbox's signed webhook reached the gateway, the verifier read the session back from Stripe and granted it).
    await pay("4242 4242 4242 4242");
    const state = await until(
      `["confirmed", "failed"].includes(document.body.dataset.state) && document.body.dataset.state`,
      "the return from checkout",
    );
    assert.equal(state, "confirmed", await browser.run(`return document.getElementById("status").textContent;`));
    assert.equal(
      await browser.run(`return document.querySelector('[data-entitlement="extra_garden"]')?.dataset.active;`),
      "true",
    );

    const info = await customer(user);
    assert.equal(info.entitlements.extra_garden?.active, true);
    assert.equal(info.entitlements.extra_garden?.store, "stripe");
    // One purchase: the declined card bought nothing.
    const bought = info.non_subscription_purchases.filter((purchase) => purchase.product_id === "extra_garden");
    assert.equal(bought.length, 1, JSON.stringify(bought));
    assert.equal(bought[0].store, "stripe");

    // ShopkeeperKit's Linux example, buying nothing, logged in as the same app user id: the same entitlement, from
    // Stripe. (Its device is a version 1.0 install, which the demo grandfathers into the extra garden: the store
    // in its line, `stripe`, is what shows the web purchase.)
    const device = mkdtempSync(join(tmpdir(), "shopkeeper-web-kit-"));
    try {
      const { stdout } = await promisify(execFile)(kitDemo, ["--no-purchase", user], {
        env: { ...process.env, ...stack, SHOPKEEPER_KIT_DEMO_DIR: device },
        timeout: 120_000,
      });
      assert.match(stdout, new RegExp(`^customer: ${user}$`, "m"), stdout);
      assert.match(stdout, /^ {2}extra_garden: active \([^,]+, stripe\)/m, stdout);
    } finally {
      rmSync(device, { recursive: true, force: true });
    }
  });
});
