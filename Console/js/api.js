// Every call the console makes: the public API, authenticated by the session cookie (HttpOnly: this code never sees
// it), with the session's CSRF token on every change. The key a user signs in with is sent once, to
// /console/api/session, and kept nowhere. An answer that is not 2xx becomes an `ApiError` whose message says in words
// what the server said (its problem document); a 401 also tells the app the session is over.

import { hasMore, withQuery } from "./pure/query.js";

let csrfToken = null;

/** Remembers the signed-in session's CSRF token (in memory only), or forgets it (`null`). */
export function useSession(session) {
  csrfToken = session ? session.csrf_token : null;
}

/** A refused or failed call: `status` (0 when the server could not be reached), the problem document's `code`,
 *  `title`, `detail` and field `errors`. */
export class ApiError extends Error {
  constructor(status, problem = {}) {
    super(describe(status, problem));
    this.name = "ApiError";
    this.status = status;
    this.code = problem.code || null;
    this.title = problem.title || null;
    this.detail = problem.detail || null;
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    this.requestID = problem.request_id || null;
  }
}

function describe(status, problem) {
  const title = problem.title || (status === 0 ? "The server could not be reached" : `The server answered ${status}`);
  const detail = problem.detail && problem.detail !== title ? `: ${problem.detail}` : "";
  const fields = (Array.isArray(problem.errors) ? problem.errors : [])
    .map((error) => `${error.pointer || "?"} ${error.detail || ""}`.trim())
    .join("; ");
  return `${title}${detail}${fields ? ` (${fields})` : ""}`;
}

/** Encodes one path segment (an app user id may hold anything). */
export function segment(value) {
  return encodeURIComponent(value);
}

/**
 * Calls the API. `body` is sent as JSON; `query` is added to the path. Resolves to the parsed JSON answer (`null` for
 * an empty one); rejects with `ApiError`.
 */
export async function api(method, path, { body, query, headers = {} } = {}) {
  const changing = method !== "GET" && method !== "HEAD";
  const request = {
    method,
    credentials: "same-origin",
    cache: "no-store",
    headers: { Accept: "application/json, application/problem+json", ...headers },
  };
  if (changing && csrfToken) request.headers["X-CSRF-Token"] = csrfToken;
  if (body !== undefined) {
    request.headers["Content-Type"] = "application/json";
    request.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(withQuery(path, query), request);
  } catch (error) {
    throw new ApiError(0, { detail: error && error.message ? error.message : undefined });
  }
  const text = await response.text();
  let parsed = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (!response.ok) {
    const problem = parsed && typeof parsed === "object" ? parsed : { detail: text.slice(0, 200) || undefined };
    if (!problem.request_id) problem.request_id = response.headers.get("X-Request-ID");
    const error = new ApiError(response.status, problem);
    if (response.status === 401) window.dispatchEvent(new CustomEvent("console:unauthorized", { detail: error }));
    throw error;
  }
  return parsed;
}

export const get = (path, query) => api("GET", path, { query });
export const post = (path, body, options = {}) => api("POST", path, { ...options, body });
export const put = (path, body, options = {}) => api("PUT", path, { ...options, body });
export const del = (path, options = {}) => api("DELETE", path, options);

/** Fetches every page of a list that pages with `before`/`next_before`, up to `limit` items. */
export async function collect(path, key, { query = {}, pageSize = 200, limit = 1000 } = {}) {
  const items = [];
  let before;
  do {
    const page = await get(path, { ...query, limit: pageSize, before });
    items.push(...(page[key] || []));
    before = page.next_before;
  } while (hasMore(before) && items.length < limit);
  return { items, more: hasMore(before) };
}
