// Sends one request of the public API (docs/openapi.yaml) as ShopkeeperKit's ShopkeeperAPI does: the public key
// as a bearer, the customer token where a customer is named, retries of 408/429/5xx and broken connections by the
// policy (waiting Retry-After), the ETag cache with If-None-Match, and signed answers verified when the app
// trusts signing keys. Every failure is a ShopkeeperError.

import { ShopkeeperError } from "./errors.js";
import { retryAfterSeconds, retryDelay } from "./retry.js";
import { nonceHeader, requestTarget, signatureHeader } from "./signing.js";
import { MemoryStorage, readJSON, writeJSON } from "./storage.js";

/** The prefix of the ETag cache's storage keys (the rest is the request's URL). */
export const etagKeyPrefix = "shopkeeper.etag:";

/**
 * How a cached read goes: `revalidate` (the default) sends If-None-Match and takes a 304 from the cache;
 * `cache-first` answers a kept body without asking; `network-only` asks without If-None-Match.
 * @typedef {"revalidate" | "cache-first" | "network-only"} FetchPolicy
 */

/**
 * The clock the client waits on: injectable so that tests see every wait without waiting.
 * @typedef {object} Clock
 * @property {() => number} now milliseconds since 1970
 * @property {(milliseconds: number) => Promise<void>} sleep
 */

/**
 * @typedef {object} APIRequest
 * @property {string} method
 * @property {string} path already percent-encoded (see `segment`)
 * @property {Record<string, string | undefined>} [query]
 * @property {string} [customer] the app user id the request acts for (adds the customer token)
 * @property {boolean} [cached] keep the 200 body by ETag and revalidate with If-None-Match
 * @property {FetchPolicy} [fetchPolicy]
 * @property {unknown} [body] sent as JSON
 */

/**
 * @typedef {object} ClientOptions
 * @property {string} baseURL
 * @property {string} apiKey
 * @property {typeof globalThis.fetch} fetch
 * @property {import("./storage.js").KeyValueStorage} storage where the ETag cache is kept (unless answers are signed)
 * @property {import("./retry.js").RetryPolicy} retry
 * @property {Clock} clock
 * @property {() => number} random in 0...1, for the backoff's jitter
 * @property {number} requestTimeout seconds
 * @property {((appUserID: string) => Promise<string | null | undefined>) | undefined} customerToken
 * @property {import("./signing.js").AnswerVerifier | null} verifier
 */

/** @typedef {{ status: number, headers: Headers, body: Uint8Array }} Answer */

/** The HTTP client underneath `Shopkeeper`. */
export class APIClient {
  /** @param {ClientOptions} options */
  constructor(options) {
    this.options = options;
    this.base = options.baseURL.replace(/\/+$/, "");
    // Where the ETag cache is kept. Under signed answers, in memory only (as ShopkeeperKit keeps it): a signed 304
    // vouches for the entity tag, not for a body someone could have edited in localStorage.
    this.cache = options.verifier ? new MemoryStorage() : options.storage;
  }

  /**
   * Sends `request` (retrying by the policy) and answers the parsed JSON of a 2xx (or a 304's kept body), with the
   * body's text (to tell a change).
   * @param {APIRequest} request
   * @returns {Promise<{ value: any, text: string }>}
   */
  async send(request) {
    const url = this.url(request);
    const cacheKey = etagKeyPrefix + url.href;
    const kept = request.cached ? keptAnswer(this.cache, cacheKey) : null;
    if (kept !== null && request.fetchPolicy === "cache-first") return parsed(kept.body, request);
    const { retry, clock, random } = this.options;
    for (let attempt = 1; ; attempt += 1) {
      let failure;
      try {
        const text = await this.tryOnce(request, url, request.fetchPolicy === "network-only" ? null : kept);
        if (request.cached && text.etag !== null && !text.fromCache) {
          writeJSON(this.cache, cacheKey, { etag: text.etag, body: text.body });
        }
        return parsed(text.body, request);
      } catch (error) {
        if (!(error instanceof ShopkeeperError)) throw error;
        failure = error;
      }
      if (!failure.isRetryable || attempt >= retry.maxAttempts) throw failure;
      const seconds = retryDelay(retry, attempt, failure.retryAfter, random());
      await clock.sleep(seconds * 1000);
    }
  }

  /**
   * One try: the answer's body text (a 304's from the kept entry) and its ETag.
   * @param {APIRequest} request
   * @param {URL} url
   * @param {{ etag: string, body: string } | null} kept
   * @returns {Promise<{ body: string, etag: string | null, fromCache: boolean }>}
   */
  async tryOnce(request, url, kept) {
    /** @type {Record<string, string>} */
    const headers = { Authorization: `Bearer ${this.options.apiKey}`, Accept: "application/json" };
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    if (request.customer !== undefined) {
      const token = await this.customerToken(request.customer);
      if (token) headers["Shopkeeper-Customer-Token"] = token;
    }
    if (kept !== null) headers["If-None-Match"] = kept.etag;
    const verifier = this.options.verifier;
    const nonce = verifier?.makeNonce() ?? null;
    if (nonce !== null) headers[nonceHeader] = nonce;
    const answer = await this.exchange(url, request, headers);
    const etag = answer.headers.get("ETag");
    const ok = answer.status >= 200 && answer.status <= 299;
    if (verifier && nonce !== null && (ok || answer.status === 304)) {
      const signature = answer.headers.get(signatureHeader);
      await verifier.verify({ status: answer.status, signature, etag, body: answer.body }, requestTarget(url), nonce);
      if (answer.status === 304 && etag !== kept?.etag) {
        throw new ShopkeeperError("untrusted_answer", "Not Modified names another entity tag than the one kept");
      }
    }
    if (ok) return { body: new TextDecoder().decode(answer.body), etag, fromCache: false };
    if (answer.status === 304 && kept !== null) return { body: kept.body, etag: kept.etag, fromCache: true };
    const retryAfter = retryAfterSeconds(answer.headers.get("Retry-After"));
    throw ShopkeeperError.fromAnswer(answer.status, new TextDecoder().decode(answer.body), retryAfter);
  }

  /**
   * @param {URL} url
   * @param {APIRequest} request
   * @param {Record<string, string>} headers
   * @returns {Promise<Answer>}
   */
  async exchange(url, request, headers) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.requestTimeout * 1000);
    try {
      const response = await this.options.fetch(url.href, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        // The client keeps its own ETag cache: the browser's HTTP cache must not answer or revalidate for it.
        cache: "no-store",
        signal: controller.signal,
      });
      return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) };
    } catch (error) {
      throw new ShopkeeperError("transport", `${request.method} ${url.pathname}: ${String(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The app's customer token for `appUserID`; a failing callback is `401 customer_token_unavailable`, as in
   * ShopkeeperKit.
   * @param {string} appUserID
   */
  async customerToken(appUserID) {
    const provider = this.options.customerToken;
    if (provider === undefined) return null;
    try {
      return (await provider(appUserID)) ?? null;
    } catch (error) {
      const problem = {
        type: "about:blank",
        title: "Customer token unavailable",
        status: 401,
        detail: `The app's customer token callback failed: ${String(error)}`,
        code: "customer_token_unavailable",
      };
      throw new ShopkeeperError("server", problem.detail, { problem, cause: error });
    }
  }

  /** @param {APIRequest} request */
  url(request) {
    const url = new URL(this.base + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== "") url.searchParams.set(name, value);
    }
    return url;
  }
}

/**
 * A path segment, percent-encoded (an app user id may hold `/`, `?` or spaces).
 * @param {string} value
 */
export function segment(value) {
  return encodeURIComponent(value);
}

/**
 * @param {import("./storage.js").KeyValueStorage} storage
 * @param {string} key
 * @returns {{ etag: string, body: string } | null}
 */
function keptAnswer(storage, key) {
  const value = /** @type {{ etag?: unknown, body?: unknown } | null} */ (readJSON(storage, key));
  if (value === null || typeof value.etag !== "string" || typeof value.body !== "string") return null;
  return { etag: value.etag, body: value.body };
}

/**
 * @param {string} text
 * @param {APIRequest} request
 */
function parsed(text, request) {
  try {
    return { value: JSON.parse(text), text };
  } catch (error) {
    throw new ShopkeeperError("decoding", `${request.method} ${request.path}: not JSON`, { cause: error });
  }
}
