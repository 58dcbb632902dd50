// What the unit tests share: a fake fetch that records each request and answers from a script, and a clock whose
// sleeps are recorded and return at once (no test waits for real time).

/**
 * One request the fake fetch saw.
 * @typedef {{ url: URL, method: string, headers: Record<string, string>, body: unknown }} SeenRequest
 */

/**
 * A fetch answering each request with the next of `answers` (a function of the request, or a fixed answer);
 * `seen` lists the requests. An answer is `{ status, headers, body }` (body: an object sent as JSON, or a
 * string), or an Error to throw as a broken connection does.
 * @param {Array<object | Function | Error>} answers
 */
export function fakeFetch(answers) {
  /** @type {SeenRequest[]} */
  const seen = [];
  const queue = [...answers];
  const fetch = async (input, init = {}) => {
    const headers = {};
    for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
    const request = {
      url: new URL(input),
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.parse(init.body),
    };
    seen.push(request);
    if (queue.length === 0) throw new Error(`unexpected request ${request.method} ${request.url}`);
    let answer = queue.shift();
    if (typeof answer === "function") answer = await answer(request);
    if (answer instanceof Error) throw answer;
    return respond(answer);
  };
  return { fetch, seen, remaining: () => queue.length };
}

/**
 * A Response for `{ status, headers, body }`.
 * @param {{ status?: number, headers?: Record<string, string>, body?: unknown }} answer
 */
export function respond({ status = 200, headers = {}, body }) {
  const text = body === undefined ? null : typeof body === "string" ? body : JSON.stringify(body);
  const contentType = status >= 400 ? "application/problem+json" : "application/json";
  return new Response(status === 304 ? null : text, {
    status,
    headers: { ...(text === null ? {} : { "Content-Type": contentType }), ...headers },
  });
}

/** A clock at `start` milliseconds whose sleeps advance it at once and are listed in `sleeps`. */
export function fakeClock(start = Date.UTC(2026, 10, 28, 12)) {
  const clock = {
    time: start,
    /** @type {number[]} */
    sleeps: [],
    now: () => clock.time,
    sleep: async (milliseconds) => {
      clock.sleeps.push(milliseconds);
      clock.time += milliseconds;
    },
  };
  return clock;
}

/**
 * A problem document answer.
 * @param {number} status
 * @param {string} code
 * @param {Record<string, string>} [headers]
 */
export function problem(status, code, headers = {}) {
  return { status, headers, body: { type: "about:blank", title: "Problem", status, detail: `${code} here`, code } };
}

/**
 * A customer's info as the server answers it (docs/openapi.yaml's CustomerInfo), owning `purchases`.
 * @param {string} appUserID
 * @param {Array<{ product_id: string, transaction_id: string }>} [purchases]
 */
export function customerInfo(appUserID, purchases = []) {
  return {
    app_user_id: appUserID,
    aliases: [appUserID],
    first_seen: "2026-11-28T12:00:00Z",
    last_seen: "2026-11-28T12:00:00Z",
    refund_count: 0,
    entitlements: Object.fromEntries(
      purchases.map((purchase) => [
        purchase.product_id,
        {
          active: true,
          expires_at: null,
          product_id: purchase.product_id,
          purchase_date: "2026-11-28T12:00:00Z",
          store: "play_store",
          environment: "sandbox",
          source: "purchase",
        },
      ]),
    ),
    subscriptions: [],
    non_subscription_purchases: purchases.map((purchase) => ({
      product_id: purchase.product_id,
      store_product_id: purchase.product_id,
      type: "non_consumable",
      store: "play_store",
      environment: "sandbox",
      transaction_id: purchase.transaction_id,
      original_transaction_id: purchase.transaction_id,
      purchase_date: "2026-11-28T12:00:00Z",
      quantity: 1,
      revoked_at: null,
      revocation_reason: null,
    })),
    consumable_balances: {},
    trial: { state: "none" },
    product_grants: [],
  };
}

export const publicKey = "pk_0123456789abcdefghijklmnopqrstuv";
export const baseURL = "https://shop.example.com";
