// Every failure of the web client, as one error type (ShopkeeperKit's ShopkeeperError).

/**
 * An RFC 9457 problem document, the body of every error answer (schema `Problem` of docs/openapi.yaml).
 * @typedef {object} Problem
 * @property {string} type
 * @property {string} title
 * @property {number} status
 * @property {string} detail
 * @property {string} code The stable, machine-readable code: switch on it, never on `detail`.
 * @property {string} [request_id]
 * @property {{ pointer: string, detail: string }[]} [errors]
 */

/**
 * What went wrong:
 * - `server`: the server answered with a problem document (`problem`, `code`, `status`, `retryAfter`);
 * - `transport`: no answer (the network, a timeout);
 * - `decoding`: an answer that is not the JSON the document says;
 * - `untrusted_answer`: the app trusts signing keys and this answer is not signed by one of them for this request;
 * - `purchase_not_confirmed`: a return from checkout whose purchase did not show (yet);
 * - `storage`: the storage that keeps the ids could not be read or written (a browser that refuses localStorage);
 * - `invalid_argument`: the app called the client wrongly (an empty app user id, a missing option).
 * @typedef {"server" | "transport" | "decoding" | "untrusted_answer" | "purchase_not_confirmed" | "storage"
 *   | "invalid_argument"} ErrorKind
 */

/** Every failure of the web client. What matters to an app is `isRetryable` and, for server answers, `code`. */
export class ShopkeeperError extends Error {
  /**
   * @param {ErrorKind} kind
   * @param {string} message
   * @param {{ problem?: Problem, retryAfter?: number | null, cause?: unknown }} [details]
   */
  constructor(kind, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ShopkeeperError";
    /** @type {ErrorKind} */
    this.kind = kind;
    /** @type {Problem | null} */
    this.problem = details.problem ?? null;
    /** `Retry-After` in seconds, when the server gave it. @type {number | null} */
    this.retryAfter = details.retryAfter ?? null;
  }

  /** The server's stable error code (`rate_limited`, `customer_token_mismatch`, ...); `null` for other kinds. */
  get code() {
    return this.problem?.code ?? null;
  }

  /** The HTTP status of a server answer; `null` for other kinds. */
  get status() {
    return this.problem?.status ?? null;
  }

  /** Whether the same request may succeed later: no answer, `408`, `429`, `5xx`. Never another `4xx` verdict. */
  get isRetryable() {
    if (this.kind === "transport") return true;
    return this.kind === "server" && isRetryableStatus(this.problem?.status ?? 0);
  }

  /**
   * The error for a server's answer: its problem document, or one made from the status when the body is not one.
   * @param {number} status
   * @param {string} text the answer's body
   * @param {number | null} retryAfter
   */
  static fromAnswer(status, text, retryAfter) {
    const problem = parseProblem(text) ?? {
      type: "about:blank",
      title: `HTTP ${status}`,
      status,
      detail: text.slice(0, 512),
      code: `http_${status}`,
    };
    return new ShopkeeperError("server", `${problem.code}: ${problem.detail}`, { problem, retryAfter });
  }
}

/**
 * Whether an answer with this status may change if the same request is sent again.
 * @param {number} status
 */
export function isRetryableStatus(status) {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * A problem document, when the text is one (a JSON object with a string `code` and a numeric `status`).
 * @param {string} text
 * @returns {Problem | null}
 */
function parseProblem(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object" || typeof value.code !== "string") return null;
  if (typeof value.status !== "number") return null;
  return {
    type: typeof value.type === "string" ? value.type : "about:blank",
    title: typeof value.title === "string" ? value.title : "",
    status: value.status,
    detail: typeof value.detail === "string" ? value.detail : "",
    code: value.code,
    ...(typeof value.request_id === "string" ? { request_id: value.request_id } : {}),
    ...(Array.isArray(value.errors) ? { errors: value.errors } : {}),
  };
}
