// Redemption codes: what a visitor bought on the web before having an account, moved into the app once
// (ShopkeeperKit's `redeem(code:)`).

import { ShopkeeperError } from "./errors.js";
import { segment } from "./http.js";

/**
 * Issues a one-time code for `appUserID`'s web purchases (`POST /v1/customers/{app_user_id}/redemption-codes`).
 * With the public key the id must be anonymous (`anon_` and a UUID) unless a customer token proves it.
 * @param {import("./http.js").APIClient} api
 * @param {string} appUserID
 * @returns {Promise<import("./models.js").RedemptionCode>}
 */
export async function issueRedemptionCode(api, appUserID) {
  const { value } = await api.send({
    method: "POST",
    path: `/v1/customers/${segment(appUserID)}/redemption-codes`,
    customer: appUserID,
  });
  if (typeof value?.code !== "string" || typeof value?.expires_at !== "string") {
    throw new ShopkeeperError("decoding", "the redemption code answer has no code and expires_at");
  }
  return { code: value.code, expires_at: value.expires_at };
}
