// The demo web shop's page: the demo garden's catalog as the web sees it (platform `stripe`), the customer's
// entitlements and consumables, logging in by app user id, and buying through Stripe's checkout with the web client's
// purchase(); on the return from checkout (`?session_id=...`) it waits until the purchase shows and says so.
//
// `body[data-state]` tells where the page is, for people and for the end-to-end test (e2e/demo-shop.test.js):
// `loading`, `ready`, `buying` (on the way to the checkout), `confirming` (back from it, waiting for the purchase),
// `confirmed`, or `failed` (the message is in #status).

import { Shopkeeper, ShopkeeperError } from "../index.js";

/**
 * What the server writes in ./config.json (scripts/lib/demo-shop.py): both are public.
 * @typedef {{ gateway_url: string, public_key: string }} ShopConfig
 */

/** The version of this web shop, compared with each product's minimum app version. */
const shopVersion = "2.0";

/**
 * The element with this id; the page has every one the script uses.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function element(id, type) {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no #${id}`);
  return found;
}

/**
 * Says where the page is, and shows a message (an error in red).
 * @param {string} state
 * @param {string} message
 * @param {boolean} [isError]
 */
function show(state, message, isError = false) {
  document.body.dataset.state = state;
  const status = element("status", HTMLParagraphElement);
  status.textContent = message;
  status.classList.toggle("error", isError);
}

/**
 * A failure as a person reads it.
 * @param {unknown} error
 */
function describe(error) {
  if (error instanceof ShopkeeperError) return error.code ? `${error.message} (${error.code})` : error.message;
  return String(error);
}

/**
 * A list item with text parts, each in a span of its class.
 * @param {Record<string, string>} parts class to text
 */
function item(parts) {
  const li = document.createElement("li");
  for (const [className, text] of Object.entries(parts)) {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = text;
    li.append(span, " ");
  }
  return li;
}

/**
 * Shows who the customer is and what they own, and marks the products they already own.
 * @param {Shopkeeper} shop
 * @param {import("../src/models.js").CustomerInfo} info
 */
function renderCustomer(shop, info) {
  element("app-user-id", HTMLElement).textContent = info.app_user_id;
  element("anonymous", HTMLElement).hidden = !shop.isAnonymous;
  const entitlements = Object.entries(info.entitlements).sort(([a], [b]) => a.localeCompare(b));
  element("entitlements", HTMLUListElement).replaceChildren(
    ...entitlements.map(([id, entitlement]) => {
      const until = entitlement.expires_at ? ` until ${entitlement.expires_at}` : "";
      const li = item({ id, state: entitlement.active ? `active${until}` : "inactive", store: `(${entitlement.store})` });
      li.dataset.entitlement = id;
      li.dataset.active = String(entitlement.active);
      return li;
    }),
  );
  const balances = Object.entries(info.consumable_balances).sort(([a], [b]) => a.localeCompare(b));
  element("balances", HTMLUListElement).replaceChildren(
    ...balances.map(([product, units]) => {
      const li = item({ product, units: `${units} left` });
      li.dataset.balance = product;
      return li;
    }),
  );
  for (const button of document.querySelectorAll("button.buy")) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const granted = (button.dataset.entitlements ?? "").split(" ").filter((id) => id !== "");
    const owned = granted.length > 0 && granted.every((id) => info.entitlements[id]?.active === true);
    button.disabled = owned && button.dataset.type !== "consumable";
    button.textContent = button.disabled ? "Owned" : "Buy";
  }
}

/**
 * The products the web sells, each with its price and a buy button.
 * @param {Shopkeeper} shop
 * @param {import("../src/models.js").CatalogView} catalog
 */
function renderProducts(shop, catalog) {
  const here = `${location.origin}${location.pathname}`;
  const sold = catalog.products.filter((product) => product.availability === "purchasable");
  element("products", HTMLUListElement).replaceChildren(
    ...sold.map((product) => {
      /** @type {import("../src/models.js").CatalogItem & { description?: string, price_hint?: string }} */
      const shown = product;
      const li = item({
        name: shown.name,
        description: shown.description ?? "",
        price: shown.price_hint ?? "",
      });
      li.dataset.productId = product.product_id;
      const button = document.createElement("button");
      button.className = "buy";
      button.textContent = "Buy";
      button.dataset.productId = product.product_id;
      button.dataset.type = product.type;
      button.dataset.entitlements = product.entitlements.join(" ");
      button.addEventListener("click", async () => {
        show("buying", `Going to the checkout for ${shown.name}…`);
        try {
          await shop.purchase(product.product_id, {
            successURL: `${here}?session_id={CHECKOUT_SESSION_ID}`,
            cancelURL: `${here}?canceled=1`,
          });
        } catch (error) {
          show("failed", `Could not start the checkout: ${describe(error)}`, true);
        }
      });
      li.append(button);
      return li;
    }),
  );
}

/** Reads the configuration, shows the shop and the customer, and finishes a purchase this page returns from. */
async function start() {
  const answer = await fetch("config.json", { cache: "no-store" });
  if (!answer.ok) throw new Error(`config.json answered ${answer.status}`);
  /** @type {ShopConfig} */
  const config = await answer.json();
  const shop = Shopkeeper.configure({ apiKey: config.public_key, baseURL: config.gateway_url, appVersion: shopVersion });
  shop.addEventListener("customerinfo", (event) => {
    if (event instanceof CustomEvent) renderCustomer(shop, event.detail);
  });

  element("log-in", HTMLFormElement).addEventListener("submit", async (event) => {
    event.preventDefault();
    const user = element("user", HTMLInputElement).value.trim();
    try {
      renderCustomer(shop, await shop.logIn(user));
      show("ready", `Logged in as ${user}.`);
    } catch (error) {
      show("failed", `Could not log in: ${describe(error)}`, true);
    }
  });
  element("log-out", HTMLButtonElement).addEventListener("click", async () => {
    shop.logOut();
    renderCustomer(shop, await shop.customerInfo());
    show("ready", "Logged out: a new anonymous customer.");
  });

  renderProducts(shop, await shop.catalog());
  renderCustomer(shop, await shop.customerInfo());

  const query = new URLSearchParams(location.search);
  // The return from checkout: the address is the shop's again (a reload does not confirm twice).
  history.replaceState(null, "", location.pathname);
  if (query.has("session_id")) {
    show("confirming", "Payment received: waiting for the purchase to show…");
    try {
      const info = await shop.completePurchase({ url: `${location.origin}/?${query}` });
      renderCustomer(shop, info);
      show("confirmed", `Thank you! ${info.app_user_id} owns it now, on the web and in the app.`);
    } catch (error) {
      show("failed", `The purchase has not shown yet: ${describe(error)}`, true);
    }
  } else if (query.has("canceled")) {
    show("ready", "Checkout canceled: nothing was charged.");
  } else {
    show("ready", "");
  }
}

start().catch((error) => show("failed", `The shop could not start: ${describe(error)}`, true));
