// Where the client keeps what must outlive a page: the ids, the ETag cache, checkouts under way. Any object with
// localStorage's getItem/setItem/removeItem will do; localStorage in a browser, MemoryStorage in Node.

import { ShopkeeperError } from "./errors.js";

/**
 * The part of the Web Storage API the client uses (localStorage and sessionStorage have it).
 * @typedef {object} KeyValueStorage
 * @property {(key: string) => string | null} getItem
 * @property {(key: string, value: string) => void} setItem
 * @property {(key: string) => void} removeItem
 */

/** A storage in memory: for Node, tests, and pages that must keep nothing. Lost when the process or page ends. */
export class MemoryStorage {
  constructor() {
    /** @type {Map<string, string>} */
    this.items = new Map();
  }

  /** @param {string} key */
  getItem(key) {
    return this.items.get(key) ?? null;
  }

  /** @param {string} key @param {string} value */
  setItem(key, value) {
    this.items.set(key, String(value));
  }

  /** @param {string} key */
  removeItem(key) {
    this.items.delete(key);
  }
}

/**
 * The browser's localStorage. Throws when there is none or it refuses access (some private modes, storage
 * disabled): a client that kept its ids nowhere would make up a new anonymous customer on every page.
 * @returns {KeyValueStorage}
 */
export function defaultStorage() {
  try {
    const storage = globalThis.localStorage;
    if (storage) return storage;
  } catch (error) {
    throw new ShopkeeperError("storage", `localStorage is not available: ${String(error)}`, { cause: error });
  }
  throw new ShopkeeperError(
    "storage",
    "no localStorage here (Node?): pass `storage` to Shopkeeper.configure, such as new MemoryStorage()",
  );
}

/**
 * A JSON value kept under `key`, or `null` when there is none or it is not JSON.
 * @param {KeyValueStorage} storage
 * @param {string} key
 * @returns {unknown}
 */
export function readJSON(storage, key) {
  const text = storage.getItem(key);
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Keeps a JSON value under `key`; a storage that refuses (full, disabled) is a `storage` error.
 * @param {KeyValueStorage} storage
 * @param {string} key
 * @param {unknown} value
 */
export function writeJSON(storage, key, value) {
  try {
    storage.setItem(key, JSON.stringify(value));
  } catch (error) {
    throw new ShopkeeperError("storage", `could not keep ${key}: ${String(error)}`, { cause: error });
  }
}
