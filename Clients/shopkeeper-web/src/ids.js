// Who the client acts for, by ShopkeeperKit's rules: an anonymous id (`anon_` and a lowercase UUID, the reserved
// form the server recognises as anonymous) until someone logs in; the ids kept in storage so that the next page
// is the same customer.

import { ShopkeeperError } from "./errors.js";
import { readJSON, writeJSON } from "./storage.js";

/** The storage key of the ids. */
export const idsKey = "shopkeeper.ids";

/**
 * @typedef {object} IDState
 * @property {string} anonymousID This browser's anonymous id (`anon_` and a UUID).
 * @property {string} appUserID The current app user id: the anonymous id until logIn.
 * @property {string[]} knownUserIDs Every id this browser acted for (change events for them are taken).
 */

const anonymousPattern = /^anon_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A new, unguessable anonymous id.
 * @param {() => string} [uuid] a random UUID (crypto.randomUUID by default)
 */
export function makeAnonymousID(uuid = () => globalThis.crypto.randomUUID()) {
  return `anon_${uuid().toLowerCase()}`;
}

/**
 * Whether an id is an anonymous install id as ShopkeeperKit makes them (what the public key may link from).
 * @param {string} id
 */
export function isAnonymousID(id) {
  return anonymousPattern.test(id);
}

/**
 * Refuses what cannot be an app user id (not a string, empty).
 * @param {unknown} id
 * @returns {string}
 */
export function checkAppUserID(id) {
  if (typeof id !== "string" || id.length === 0) {
    throw new ShopkeeperError("invalid_argument", "an app user id is a non-empty string");
  }
  return id;
}

/**
 * The ids the storage keeps, or new ones (kept at once). `appUserID`, when given, is the current user from now on.
 * @param {import("./storage.js").KeyValueStorage} storage
 * @param {string | undefined} appUserID
 * @param {() => string} [makeID]
 * @returns {IDState}
 */
export function openIDs(storage, appUserID, makeID = makeAnonymousID) {
  const kept = parseIDs(readJSON(storage, idsKey));
  let state = kept ?? fresh(makeID());
  if (appUserID !== undefined) state = using(state, checkAppUserID(appUserID));
  if (kept === null || state !== kept) writeJSON(storage, idsKey, state);
  return state;
}

/**
 * The state acting for `appUserID` (known from then on).
 * @param {IDState} state
 * @param {string} appUserID
 * @returns {IDState}
 */
export function using(state, appUserID) {
  if (state.appUserID === appUserID) return state;
  const knownUserIDs = state.knownUserIDs.includes(appUserID)
    ? state.knownUserIDs
    : [...state.knownUserIDs, appUserID];
  return { ...state, appUserID, knownUserIDs };
}

/**
 * The state after logging out: a new anonymous id, which is the current user.
 * @param {IDState} state
 * @param {string} anonymousID
 * @returns {IDState}
 */
export function loggedOut(state, anonymousID) {
  return using({ ...state, anonymousID }, anonymousID);
}

/** @param {string} anonymousID @returns {IDState} */
function fresh(anonymousID) {
  return { anonymousID, appUserID: anonymousID, knownUserIDs: [anonymousID] };
}

/**
 * @param {unknown} value
 * @returns {IDState | null}
 */
function parseIDs(value) {
  if (value === null || typeof value !== "object") return null;
  const { anonymousID, appUserID, knownUserIDs } = /** @type {Record<string, unknown>} */ (value);
  if (typeof anonymousID !== "string" || !isAnonymousID(anonymousID)) return null;
  if (typeof appUserID !== "string" || appUserID.length === 0) return null;
  const known = Array.isArray(knownUserIDs) ? knownUserIDs.filter((id) => typeof id === "string") : [];
  return { anonymousID, appUserID, knownUserIDs: known.length > 0 ? known : [anonymousID, appUserID] };
}
