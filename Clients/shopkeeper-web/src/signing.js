// Checks the signature Shopkeeper's gateway puts on its answers when the app turned signing on (docs/openapi.yaml,
// "Signed answers"; ShopkeeperKit's AnswerVerifier): `X-Shopkeeper-Signature: v1;key=<key id>;t=<unix
// seconds>;sig=<base64>`, an Ed25519 signature over
//
//     shopkeeper-answer-v1 \n <status> \n <path and query as sent> \n <X-Shopkeeper-Nonce> \n <t> \n <ETag> \n
//     <SHA-256 of the body, lowercase hex>
//
// with WebCrypto (crypto.subtle: browsers and Node 20). An answer is taken only if a trusted key signed exactly it
// for this request's nonce and target within `maxAge` seconds of the clock.

import { ShopkeeperError } from "./errors.js";

export const nonceHeader = "X-Shopkeeper-Nonce";
export const signatureHeader = "X-Shopkeeper-Signature";

/**
 * One answer as received, to be verified.
 * @typedef {object} SignedAnswer
 * @property {number} status
 * @property {string | null} signature the X-Shopkeeper-Signature header
 * @property {string | null} etag the ETag header
 * @property {Uint8Array} body the body's bytes (none for a 304)
 */

/** Verifies answers against the app's trusted keys (`signingKeys`: key id to base64 Ed25519 public key). */
export class AnswerVerifier {
  /**
   * @param {Record<string, string>} keys key id to the base64 raw 32-byte Ed25519 public key, as
   *   `GET /v1/admin/answer-signing` lists them (two during a rotation)
   * @param {{ maxAge?: number, now?: () => number }} [options] `maxAge` in seconds (300), `now` in milliseconds
   */
  constructor(keys, options = {}) {
    /** @type {Map<string, Promise<CryptoKey | null>>} */
    this.keys = new Map(Object.entries(keys).map(([id, text]) => [id, importKey(text)]));
    this.maxAge = options.maxAge ?? 300;
    this.now = options.now ?? (() => Date.now());
  }

  /** A fresh nonce for one request. */
  makeNonce() {
    return globalThis.crypto.randomUUID();
  }

  /**
   * Throws `untrusted_answer` unless a trusted key signed `answer` for the request to `target` with `nonce`.
   * @param {SignedAnswer} answer
   * @param {string} target the request's path and query, as sent
   * @param {string} nonce
   */
  async verify(answer, target, nonce) {
    const parsed = parseSignature(answer.signature);
    const trusted = this.keys.get(parsed.keyID);
    if (trusted === undefined) untrusted(`signed with key '${parsed.keyID}', which the app does not trust`);
    const key = await trusted;
    if (key === null) untrusted(`the configured key '${parsed.keyID}' is not a base64 Ed25519 public key`);
    const digest = hex(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", answer.body)));
    const message = [
      "shopkeeper-answer-v1",
      String(answer.status),
      target,
      nonce,
      parsed.time,
      answer.etag ?? "",
      digest,
    ].join("\n");
    const valid = await globalThis.crypto.subtle.verify(
      "Ed25519",
      key,
      parsed.signature,
      new TextEncoder().encode(message),
    );
    if (!valid) untrusted("the signature does not match this answer to this request");
    const seconds = Number(parsed.time);
    if (Math.abs(seconds - this.now() / 1000) > this.maxAge) {
      untrusted(`signed at ${seconds}, more than ${this.maxAge} s from this clock`);
    }
  }
}

/**
 * The request target a URL is sent with: its path and query, percent-encoded as on the wire.
 * @param {URL} url
 */
export function requestTarget(url) {
  return (url.pathname || "/") + url.search;
}

/**
 * @param {string | null} header
 * @returns {{ keyID: string, time: string, signature: Uint8Array }}
 */
function parseSignature(header) {
  if (header === null) untrusted("the answer is unsigned");
  const items = header.split(";").map((item) => item.trim());
  if (items[0] !== "v1") untrusted(`unknown signature version in '${header}'`);
  /** @type {Record<string, string>} */
  const parts = {};
  for (const item of items.slice(1)) {
    const equals = item.indexOf("=");
    if (equals < 0) untrusted("malformed signature");
    parts[item.slice(0, equals)] = item.slice(equals + 1);
  }
  const { key, t, sig } = parts;
  const signature = sig === undefined ? null : base64Bytes(sig);
  if (key === undefined || t === undefined || !/^-?[0-9]+$/.test(t) || signature === null) {
    untrusted(`malformed signature '${header}'`);
  }
  return { keyID: key, time: t, signature };
}

/**
 * @param {string} text
 * @returns {Promise<CryptoKey | null>}
 */
async function importKey(text) {
  const raw = base64Bytes(text);
  if (raw === null || raw.length !== 32) return null;
  try {
    return await globalThis.crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  } catch {
    return null;
  }
}

/**
 * The bytes of standard base64, or `null` when the text is not base64.
 * @param {string} text
 * @returns {Uint8Array | null}
 */
export function base64Bytes(text) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const binary = globalThis.atob(text);
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

/** @param {Uint8Array} bytes */
function hex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {string} reason
 * @returns {never}
 */
function untrusted(reason) {
  throw new ShopkeeperError("untrusted_answer", `untrusted answer: ${reason}`);
}
