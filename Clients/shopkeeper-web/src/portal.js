// The store's customer portal: where a customer who bought on the web manages subscriptions, cards and invoices
// (Stripe's billing portal).

import { ShopkeeperError } from "./errors.js";
import { segment } from "./http.js";

/**
 * Asks for a portal session for `appUserID` (`POST /v1/customers/{app_user_id}/portal`); the portal's return link
 * goes to `returnURL`. A customer who owns no web purchase is refused with `no_stripe_customer` (409).
 * @param {import("./http.js").APIClient} api
 * @param {string} appUserID
 * @param {string} returnURL
 * @returns {Promise<import("./models.js").PortalSession>}
 */
export async function openPortal(api, appUserID, returnURL) {
  const { value } = await api.send({
    method: "POST",
    path: `/v1/customers/${segment(appUserID)}/portal`,
    customer: appUserID,
    body: { return_url: returnURL },
  });
  if (typeof value?.portal_url !== "string") {
    throw new ShopkeeperError("decoding", "the portal answer has no portal_url");
  }
  return { portal_url: value.portal_url };
}
