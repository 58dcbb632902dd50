// The web client's front door (ShopkeeperKit's Shopkeeper, for a browser): ids, customer info with its change
// events, the catalog, logging in and out, and buying through the store's hosted checkout.

import {
  defaultConfirmPolicy,
  forgetCheckout,
  keepCheckout,
  keptCheckoutList,
  purchaseIDs,
  purchaseShows,
  sessionIDOf,
} from "./checkout.js";
import { ShopkeeperError } from "./errors.js";
import { APIClient, segment } from "./http.js";
import { checkAppUserID, idsKey, loggedOut, makeAnonymousID, openIDs, using } from "./ids.js";
import { openPortal } from "./portal.js";
import { issueRedemptionCode } from "./redemption.js";
import { retryDelay, retryPolicy } from "./retry.js";
import { AnswerVerifier } from "./signing.js";
import { defaultStorage, writeJSON } from "./storage.js";

/**
 * What `Shopkeeper.configure` takes. Only `apiKey` and `baseURL` are required.
 * @typedef {object} ShopkeeperOptions
 * @property {string} apiKey the app's public key (`pk_...`); a secret key is refused: a page is public
 * @property {string} baseURL the gateway (`https://shop.example.com`)
 * @property {string} [appUserID] the logged-in user, if the page knows one (else the kept or a new anonymous id)
 * @property {import("./storage.js").KeyValueStorage} [storage] where ids, the ETag cache and checkouts are kept
 *   (localStorage by default; `new MemoryStorage()` in Node)
 * @property {typeof globalThis.fetch} [fetch]
 * @property {(appUserID: string) => Promise<string | null | undefined>} [customerToken] the customer token
 *   (`Shopkeeper-Customer-Token`) for an app user id, minted by the app's own server, for apps whose customer
 *   boundary is `signed`
 * @property {Record<string, string>} [signingKeys] key id to base64 Ed25519 public key: when given, every answer
 *   must be signed by one of them for its own request, or it is refused as `untrusted_answer`
 * @property {number} [signatureMaxAge] how far (seconds) a signed answer's time may be from the clock (300)
 * @property {string} [platform] the catalog's `platform` (`stripe`, the store the web sells through)
 * @property {string} [appVersion] the catalog's `app_version` ("1.0")
 * @property {"distribution" | "development"} [build] the catalog's `build` ("distribution")
 * @property {string} [variant]
 * @property {string} [locale] the catalog's `locale` (by default the browser's language)
 * @property {Partial<import("./retry.js").RetryPolicy>} [retry]
 * @property {Partial<import("./checkout.js").ConfirmPolicy>} [confirm] how long a return from checkout waits
 * @property {number} [requestTimeout] seconds (60)
 * @property {(url: string) => void} [assign] how to go to the checkout page (`location.assign`)
 * @property {import("./http.js").Clock} [clock]
 * @property {() => number} [random] in 0...1, the backoff's jitter
 */

/** The client of one app's Shopkeeper. An EventTarget: `customerinfo` events carry the new info in `detail`. */
export class Shopkeeper extends EventTarget {
  /**
   * A client for the app whose public key this is.
   * @param {ShopkeeperOptions} options
   */
  static configure(options) {
    return new Shopkeeper(options);
  }

  /** @param {ShopkeeperOptions} options */
  constructor(options) {
    super();
    const { apiKey, baseURL } = options;
    if (typeof apiKey !== "string" || !apiKey.startsWith("pk_")) {
      throw new ShopkeeperError("invalid_argument", "apiKey must be the app's public key (pk_...), never a secret key");
    }
    if (typeof baseURL !== "string" || !/^https?:\/\//.test(baseURL)) {
      throw new ShopkeeperError("invalid_argument", "baseURL must be the gateway's http(s) URL");
    }
    this.options = options;
    this.storage = options.storage ?? defaultStorage();
    this.ids = openIDs(this.storage, options.appUserID);
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.confirm = { ...defaultConfirmPolicy, ...options.confirm };
    this.api = new APIClient({
      baseURL,
      apiKey,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      storage: this.storage,
      retry: retryPolicy(options.retry),
      clock: this.clock,
      random: this.random,
      requestTimeout: options.requestTimeout ?? 60,
      customerToken: options.customerToken,
      verifier: options.signingKeys
        ? new AnswerVerifier(options.signingKeys, { maxAge: options.signatureMaxAge, now: this.clock.now })
        : null,
    });
    /**
     * The text of the last customer info published, to tell a change.
     * @type {string | null}
     */
    this.lastInfoText = null;
  }

  /** The current app user id: the anonymous id until logIn. */
  get appUserID() {
    return this.ids.appUserID;
  }

  /** This browser's anonymous id (`anon_` and a UUID). */
  get anonymousID() {
    return this.ids.anonymousID;
  }

  /** Whether no one is logged in. */
  get isAnonymous() {
    return this.ids.appUserID === this.ids.anonymousID;
  }

  /**
   * What the current customer owns now (`GET /v1/customers/{app_user_id}`, cached by ETag); a change is also sent
   * as a `customerinfo` event.
   * @param {{ fetchPolicy?: import("./http.js").FetchPolicy }} [options]
   * @returns {Promise<import("./models.js").CustomerInfo>}
   */
  async customerInfo(options = {}) {
    const appUserID = this.ids.appUserID;
    const { value, text } = await this.api.send({
      method: "GET",
      path: `/v1/customers/${segment(appUserID)}`,
      customer: appUserID,
      cached: true,
      fetchPolicy: options.fetchPolicy ?? "revalidate",
    });
    this.publish(value, text);
    return value;
  }

  /**
   * The shop as this page sees it (`GET /v1/catalog`, cached by ETag); the configured platform, app version, build,
   * variant and locale unless given here.
   * @param {{ platform?: string, appVersion?: string, build?: string, variant?: string, locale?: string,
   *   fetchPolicy?: import("./http.js").FetchPolicy }} [options]
   * @returns {Promise<import("./models.js").CatalogView>}
   */
  async catalog(options = {}) {
    const configured = this.options;
    const { value } = await this.api.send({
      method: "GET",
      path: "/v1/catalog",
      query: {
        platform: options.platform ?? configured.platform ?? "stripe",
        app_version: options.appVersion ?? configured.appVersion ?? "1.0",
        build: options.build ?? configured.build ?? "distribution",
        variant: options.variant ?? configured.variant,
        locale: options.locale ?? configured.locale ?? browserLocale(),
      },
      cached: true,
      fetchPolicy: options.fetchPolicy ?? "revalidate",
    });
    return value;
  }

  /**
   * What to offer the current customer (`GET /v1/offerings`, cached by ETag): the offering the app's targeting rules
   * choose (`current_offering_id`, or the default) and every offering as this page's build sees it, each package
   * with its product as the catalog shows it and the paywall in the closest locale. The configured platform, app
   * version, build, variant and locale unless given here; `country` (ISO 3166-1 alpha-2, `DE`) only when given:
   * without it, rules that name countries do not match.
   * @param {{ platform?: string, appVersion?: string, build?: string, variant?: string, locale?: string,
   *   country?: string, fetchPolicy?: import("./http.js").FetchPolicy }} [options]
   * @returns {Promise<import("./models.js").OfferingsView>}
   */
  async offerings(options = {}) {
    const configured = this.options;
    const appUserID = this.ids.appUserID;
    const { value } = await this.api.send({
      method: "GET",
      path: "/v1/offerings",
      query: {
        app_user_id: appUserID,
        platform: options.platform ?? configured.platform ?? "stripe",
        app_version: options.appVersion ?? configured.appVersion ?? "1.0",
        build: options.build ?? configured.build ?? "distribution",
        variant: options.variant ?? configured.variant,
        locale: options.locale ?? configured.locale ?? browserLocale(),
        country: options.country,
      },
      customer: appUserID,
      cached: true,
      fetchPolicy: options.fetchPolicy ?? "revalidate",
    });
    return value;
  }

  /**
   * Switches to a logged-in user, by ShopkeeperKit's rules: from the anonymous id, the login id is linked to it
   * first (`POST /v1/customers/{anonymous id}/aliases`), so what was bought anonymously is the user's; where the
   * public key may not link (`secret_key_required`, `merge_needs_secret_key`, `already_owned_by_other_customer`)
   * that is the app's server's job and the switch goes on. Answers the user's info.
   * @param {string} appUserID
   */
  async logIn(appUserID) {
    const next = checkAppUserID(appUserID);
    const previous = this.ids.appUserID;
    if (next !== previous && previous === this.ids.anonymousID) {
      try {
        await this.api.send({
          method: "POST",
          path: `/v1/customers/${segment(previous)}/aliases`,
          customer: previous,
          body: { alias: next },
        });
      } catch (error) {
        const theServersJob = ["secret_key_required", "merge_needs_secret_key", "already_owned_by_other_customer"];
        if (!(error instanceof ShopkeeperError) || !theServersJob.includes(error.code ?? "")) throw error;
      }
    }
    this.use(next);
    return this.customerInfo();
  }

  /** Back to a new anonymous id (what the logged-in user owns stays theirs). */
  logOut() {
    const state = loggedOut(this.ids, makeAnonymousID());
    writeJSON(this.storage, idsKey, state);
    this.ids = state;
    this.lastInfoText = null;
  }

  /**
   * Buys a catalog product on the web: asks Shopkeeper for a checkout session
   * (`POST /v1/customers/{app_user_id}/checkout`), keeps it for the return, and goes to the store's checkout page.
   * The success URL gets `session_id` back; call `completePurchase()` there.
   * @param {string} productID
   * @param {{ successURL: string, cancelURL: string }} urls
   * @returns {Promise<import("./models.js").CheckoutSession>}
   */
  async purchase(productID, urls) {
    if (typeof productID !== "string" || productID === "" || !urls?.successURL || !urls?.cancelURL) {
      throw new ShopkeeperError("invalid_argument", "purchase(productID, { successURL, cancelURL })");
    }
    const appUserID = this.ids.appUserID;
    const before = await this.customerInfo();
    const { value } = await this.api.send({
      method: "POST",
      path: `/v1/customers/${segment(appUserID)}/checkout`,
      customer: appUserID,
      body: { product_id: productID, success_url: urls.successURL, cancel_url: urls.cancelURL },
    });
    if (typeof value?.checkout_url !== "string" || typeof value?.session_id !== "string") {
      throw new ShopkeeperError("decoding", "the checkout answer has no checkout_url and session_id");
    }
    keepCheckout(this.storage, {
      session_id: value.session_id,
      product_id: productID,
      app_user_id: appUserID,
      known: purchaseIDs(before, productID),
      started_at: this.clock.now(),
    });
    this.goTo(value.checkout_url);
    return value;
  }

  /**
   * On the success page: the purchase of this page's checkout (`session_id` in `location.href`), once it shows.
   * @param {{ url?: string }} [options]
   */
  completePurchase(options = {}) {
    return this.handleReturn(options.url ?? globalThis.location.href);
  }

  /**
   * Waits (a bounded number of reads, with backoff) until the purchase of the checkout whose `session_id` the URL
   * carries shows in the customer's info, and answers that info; `purchase_not_confirmed` when it does not show in
   * time (it may still: the store's notice can be late) or the checkout was not started in this browser.
   * @param {string | URL} url
   * @returns {Promise<import("./models.js").CustomerInfo>}
   */
  async handleReturn(url) {
    const sessionID = sessionIDOf(url);
    const checkout = keptCheckoutList(this.storage).find((item) => item.session_id === sessionID);
    if (checkout === undefined) {
      throw new ShopkeeperError("purchase_not_confirmed", `checkout ${sessionID} was not started in this browser`);
    }
    if (checkout.app_user_id !== this.ids.appUserID) this.use(checkout.app_user_id);
    const policy = retryPolicy({ maxAttempts: this.confirm.attempts, ...this.confirm });
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt += 1) {
      const info = await this.customerInfo();
      if (purchaseShows(info, checkout)) {
        forgetCheckout(this.storage, sessionID);
        return info;
      }
      if (attempt < policy.maxAttempts) await this.clock.sleep(retryDelay(policy, attempt, null, this.random()) * 1000);
    }
    throw new ShopkeeperError(
      "purchase_not_confirmed",
      `the purchase of ${checkout.product_id} (checkout ${sessionID}) did not show after ${policy.maxAttempts} ` +
        "reads of the customer's info; it may still arrive: call completePurchase again later",
    );
  }

  /**
   * A one-time code (shown once, valid for 30 days by default) that moves this visitor's web purchases into the app,
   * where ShopkeeperKit's `redeem(code:)` attaches them to the app's customer. Show it after the purchase shows.
   * @returns {Promise<import("./models.js").RedemptionCode>}
   */
  redemptionCode() {
    return issueRedemptionCode(this.api, this.ids.appUserID);
  }

  /**
   * Goes to the store's customer portal (Stripe's billing portal), where the current customer cancels or resumes
   * web subscriptions, changes the card and reads invoices; its return link goes to `returnURL`. Refused with
   * `no_stripe_customer` (409) when the customer owns no web purchase.
   * @param {{ returnURL: string }} urls
   * @returns {Promise<import("./models.js").PortalSession>}
   */
  async manageSubscriptions(urls) {
    if (typeof urls?.returnURL !== "string" || urls.returnURL === "") {
      throw new ShopkeeperError("invalid_argument", "manageSubscriptions({ returnURL })");
    }
    const session = await openPortal(this.api, this.ids.appUserID, urls.returnURL);
    this.goTo(session.portal_url);
    return session;
  }

  /**
   * Sends the browser to a store's page (the `assign` option, else `location.assign`).
   * @param {string} url
   */
  goTo(url) {
    const assign = this.options.assign ?? ((target) => globalThis.location.assign(target));
    assign(url);
  }

  /**
   * Acts for `appUserID` from now on (kept in storage).
   * @param {string} appUserID
   */
  use(appUserID) {
    const state = using(this.ids, appUserID);
    writeJSON(this.storage, idsKey, state);
    this.ids = state;
    this.lastInfoText = null;
  }

  /**
   * Sends a `customerinfo` event when the info is the current customer's (or one this browser acted for) and
   * differs from the last one sent.
   * @param {import("./models.js").CustomerInfo} info
   * @param {string} text
   */
  publish(info, text) {
    if (info.app_user_id !== this.ids.appUserID && !this.ids.knownUserIDs.includes(info.app_user_id)) return;
    if (text === this.lastInfoText) return;
    this.lastInfoText = text;
    this.dispatchEvent(new CustomEvent("customerinfo", { detail: info }));
  }
}

/** @type {import("./http.js").Clock} */
const systemClock = {
  now: () => Date.now(),
  sleep: (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)),
};

/** The browser's language as the catalog's `locale` takes it (`de-AT`), if it is one. */
function browserLocale() {
  const language = globalThis.navigator?.language;
  if (typeof language !== "string") return undefined;
  return /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(language) ? language : undefined;
}
