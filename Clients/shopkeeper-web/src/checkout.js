// A web purchase: the checkout started here is kept (which product, for whom, what that customer owned of it
// before) so that the success page, after the store's hosted checkout, can tell when the purchase shows in the
// customer's info: a purchase of the product that was not there before (or that names the session).

import { ShopkeeperError } from "./errors.js";
import { readJSON, writeJSON } from "./storage.js";

/** The storage key of the checkouts under way. */
export const checkoutsKey = "shopkeeper.checkouts";
/** How many checkouts are kept (the newest). */
const keptCheckouts = 10;

/**
 * A checkout started in this browser.
 * @typedef {object} PendingCheckout
 * @property {string} session_id
 * @property {string} product_id
 * @property {string} app_user_id the customer it was started for
 * @property {string[]} known the ids of the product's purchases the customer had before it
 * @property {number} started_at milliseconds since 1970
 */

/**
 * The ids of the customer's purchases of a product (transaction and original transaction ids, revoked ones left
 * out), non-subscriptions and subscriptions alike.
 * @param {import("./models.js").CustomerInfo} info
 * @param {string} productID
 * @returns {string[]}
 */
export function purchaseIDs(info, productID) {
  const ids = new Set();
  for (const purchase of info.non_subscription_purchases ?? []) {
    if (purchase.product_id !== productID || purchase.revoked_at) continue;
    ids.add(purchase.transaction_id);
    ids.add(purchase.original_transaction_id);
  }
  for (const subscription of info.subscriptions ?? []) {
    if (subscription.product_id === productID) ids.add(subscription.original_transaction_id);
  }
  return [...ids];
}

/**
 * Whether the checkout's purchase shows in `info`: a purchase of its product that names the session or was not
 * among the customer's purchases of it when the checkout started.
 * @param {import("./models.js").CustomerInfo} info
 * @param {PendingCheckout} checkout
 */
export function purchaseShows(info, checkout) {
  return purchaseIDs(info, checkout.product_id).some(
    (id) => id === checkout.session_id || !checkout.known.includes(id),
  );
}

/**
 * The checkouts kept in storage, newest last.
 * @param {import("./storage.js").KeyValueStorage} storage
 * @returns {PendingCheckout[]}
 */
export function keptCheckoutList(storage) {
  const value = readJSON(storage, checkoutsKey);
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item) =>
      item !== null &&
      typeof item === "object" &&
      typeof item.session_id === "string" &&
      typeof item.product_id === "string" &&
      typeof item.app_user_id === "string" &&
      Array.isArray(item.known),
  );
}

/**
 * Keeps a checkout (replacing one of the same session), with at most the newest ten.
 * @param {import("./storage.js").KeyValueStorage} storage
 * @param {PendingCheckout} checkout
 */
export function keepCheckout(storage, checkout) {
  const others = keptCheckoutList(storage).filter((item) => item.session_id !== checkout.session_id);
  writeJSON(storage, checkoutsKey, [...others, checkout].slice(-keptCheckouts));
}

/**
 * Forgets a checkout once its purchase showed.
 * @param {import("./storage.js").KeyValueStorage} storage
 * @param {string} sessionID
 */
export function forgetCheckout(storage, sessionID) {
  const list = keptCheckoutList(storage);
  const rest = list.filter((item) => item.session_id !== sessionID);
  if (rest.length !== list.length) writeJSON(storage, checkoutsKey, rest);
}

/**
 * The `session_id` of a return URL (the store's success redirect).
 * @param {string | URL} url
 */
export function sessionIDOf(url) {
  const id = new URL(String(url)).searchParams.get("session_id");
  if (id === null || id === "") {
    throw new ShopkeeperError("invalid_argument", `no session_id in the return URL ${String(url)}`);
  }
  return id;
}

/**
 * How the success page waits: `attempts` reads of the customer's info at most, `baseDelay` seconds after the
 * first and doubling (with equal jitter) up to `maxDelay`. The defaults wait about half a minute in all.
 * @typedef {{ attempts: number, baseDelay: number, maxDelay: number }} ConfirmPolicy
 */

/** @type {ConfirmPolicy} */
export const defaultConfirmPolicy = Object.freeze({ attempts: 8, baseDelay: 1, maxDelay: 8 });
