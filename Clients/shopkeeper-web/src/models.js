// The server's documents the client reads, as JSDoc types (docs/openapi.yaml's schemas; only the fields the client
// itself uses are spelled out, the rest pass through untouched).

/**
 * `EntitlementInfo`.
 * @typedef {object} EntitlementInfo
 * @property {boolean} active
 * @property {string | null} expires_at
 * @property {string | null} product_id
 * @property {string} purchase_date
 * @property {string} store
 * @property {string} environment
 * @property {string} source
 */

/**
 * `NonSubscriptionPurchase` (the fields the client reads).
 * @typedef {object} NonSubscriptionPurchase
 * @property {string | null} product_id
 * @property {string} store_product_id
 * @property {string} type
 * @property {string} store
 * @property {string} transaction_id
 * @property {string} original_transaction_id
 * @property {string} purchase_date
 * @property {string | null} revoked_at
 */

/**
 * `SubscriptionInfo` (the fields the client reads).
 * @typedef {object} SubscriptionInfo
 * @property {string | null} product_id
 * @property {string} store
 * @property {string} original_transaction_id
 * @property {string} state
 * @property {boolean} active
 */

/**
 * `CustomerInfo`: what a customer owns now.
 * @typedef {object} CustomerInfo
 * @property {string} app_user_id
 * @property {string[]} aliases
 * @property {string} first_seen
 * @property {string} last_seen
 * @property {number} refund_count
 * @property {Record<string, EntitlementInfo>} entitlements
 * @property {SubscriptionInfo[]} subscriptions
 * @property {NonSubscriptionPurchase[]} non_subscription_purchases
 * @property {Record<string, number>} consumable_balances
 * @property {{ product_id: string, source: string, granted_at: string }[]} product_grants
 * @property {{ state: string }} trial
 */

/**
 * `CatalogItem` (the fields the client reads).
 * @typedef {object} CatalogItem
 * @property {string} product_id
 * @property {string} type
 * @property {string} availability
 * @property {string} [store_product_id]
 * @property {string[]} entitlements
 * @property {string} name
 */

/**
 * `CatalogView`: the shop as one build sees it.
 * @typedef {object} CatalogView
 * @property {string} platform
 * @property {string} build
 * @property {string} app_version
 * @property {string} locale
 * @property {CatalogItem[]} products
 */

/**
 * `PaywallView`: an offering's paywall document in the locale closest to the caller's.
 * @typedef {object} PaywallView
 * @property {string} layout the layout the app renders
 * @property {Record<string, string>} colors
 * @property {Record<string, string>} image_urls
 * @property {string} locale the locale the texts are in
 * @property {string} title
 * @property {string} [subtitle]
 * @property {string[]} features
 * @property {string} [call_to_action]
 */

/**
 * `PackageView`: one package of an offering, with its product as the catalog shows it to this build
 * (`product.store_product_id` is the one the package sells it with on the caller's platform).
 * @typedef {object} PackageView
 * @property {string} package_id
 * @property {CatalogItem} product
 */

/**
 * `OfferingView`: one offering as this build sees it.
 * @typedef {object} OfferingView
 * @property {string} offering_id
 * @property {string} [description]
 * @property {PackageView[]} packages the packages whose product this build may see, in order
 * @property {PaywallView} [paywall]
 */

/**
 * `OfferingsView`: what to offer one customer (`GET /v1/offerings`).
 * @typedef {object} OfferingsView
 * @property {string} [current_offering_id] the offering to show; absent when the app has no offerings
 * @property {string} [rule_id] the targeting rule that chose it; absent when the default was served
 * @property {OfferingView[]} offerings
 */

/**
 * The answer of `POST /v1/customers/{app_user_id}/checkout`.
 * @typedef {object} CheckoutSession
 * @property {string} checkout_url Where to send the browser: the store's hosted checkout page.
 * @property {string} session_id The checkout session's id; the success URL carries it back as `session_id`.
 */

/**
 * The answer of `POST /v1/customers/{app_user_id}/redemption-codes`.
 * @typedef {object} RedemptionCode
 * @property {string} code The one-time code (`ABCDE-FGHJK-MNPQR-STUVW`), shown once.
 * @property {string} expires_at When it can no longer be redeemed (ISO 8601).
 */

/**
 * The answer of `POST /v1/customers/{app_user_id}/portal`.
 * @typedef {object} PortalSession
 * @property {string} portal_url Where to send the browser: the store's customer portal (a short-lived link).
 */

export {};
