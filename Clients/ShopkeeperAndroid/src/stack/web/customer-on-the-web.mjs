// The web client (Clients/shopkeeper-web) in Node, for CrossPlatformStackTest: a browser of the same person logs in
// with their app user id and prints what the customer owns, as the web client read it (verifying signed answers when
// keys are given).
//
//   node customer-on-the-web.mjs <gateway URL> <public key> <app user id> [<signing keys as JSON>]
//
// Prints one JSON line: {"app_user_id": ..., "anonymous_id": ..., "entitlements": {id: {active, store}}}.
import { MemoryStorage, Shopkeeper } from "../../../../shopkeeper-web/index.js";

const [baseURL, apiKey, appUserID, keys] = process.argv.slice(2);
const shop = Shopkeeper.configure({
  apiKey,
  baseURL,
  storage: new MemoryStorage(),
  platform: "play_store",
  appVersion: "2.0",
  ...(keys ? { signingKeys: JSON.parse(keys) } : {}),
});
const anonymousID = shop.anonymousID;
const info = await shop.logIn(appUserID);
const entitlements = Object.fromEntries(
  Object.entries(info.entitlements).map(([id, entitlement]) => [id, { active: entitlement.active, store: entitlement.store }]),
);
console.log(JSON.stringify({ app_user_id: info.app_user_id, anonymous_id: anonymousID, entitlements }));
