// When and how often a request is tried again (ShopkeeperKit's RetryPolicy): on 408, 429 and 5xx answers and
// broken connections, never on another 4xx. Waits Retry-After when the server gives it, otherwise an exponential
// backoff with equal jitter.

/**
 * @typedef {object} RetryPolicy
 * @property {number} maxAttempts Tries of one request in all (1: no retry).
 * @property {number} baseDelay The first backoff, in seconds; doubles per try.
 * @property {number} maxDelay The longest wait, in seconds (a longer Retry-After is cut to it).
 */

/** The default: four tries within about ten seconds, as ShopkeeperKit. @type {RetryPolicy} */
export const defaultRetryPolicy = Object.freeze({ maxAttempts: 4, baseDelay: 0.5, maxDelay: 8 });

/**
 * A policy with the defaults filled in and the numbers kept in range.
 * @param {Partial<RetryPolicy>} [given]
 * @returns {RetryPolicy}
 */
export function retryPolicy(given = {}) {
  const merged = { ...defaultRetryPolicy, ...given };
  return {
    maxAttempts: Math.max(1, Math.floor(merged.maxAttempts)),
    baseDelay: Math.max(0, merged.baseDelay),
    maxDelay: Math.max(0, merged.maxDelay),
  };
}

/**
 * Seconds to wait after failed try number `attempt` (1-based): `retryAfter` when given, else
 * `baseDelay * 2^(attempt-1)` with equal jitter (`unit` in 0...1 picks the random half); at most `maxDelay`.
 * @param {RetryPolicy} policy
 * @param {number} attempt
 * @param {number | null} retryAfter
 * @param {number} unit
 */
export function retryDelay(policy, attempt, retryAfter, unit) {
  if (retryAfter !== null) return Math.min(Math.max(0, retryAfter), policy.maxDelay);
  const exponential = policy.baseDelay * 2 ** Math.min(Math.max(attempt - 1, 0), 20);
  const capped = Math.min(exponential, policy.maxDelay);
  return capped / 2 + (capped / 2) * Math.min(Math.max(unit, 0), 1);
}

/**
 * Parses Retry-After: whole (or decimal) seconds, what Shopkeeper sends; an HTTP date is ignored as unknown.
 * @param {string | null} header
 * @returns {number | null}
 */
export function retryAfterSeconds(header) {
  if (header === null) return null;
  const text = header.trim();
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) return null;
  return Number(text);
}
