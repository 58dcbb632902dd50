// The list pages' arithmetic: what the query asks for (the webhooks page's delivery filter, the refused proofs'
// outcome), which events a filter keeps, and how a customer search's matches are named. Pure.

import { words } from "./format.js";

/** The webhooks page's delivery filters: `[value, label]`. */
export const deliveryFilters = [
  ["all", "All events"],
  ["dead", "Dead letters"],
  ["pending", "Pending deliveries"],
  ["delivered", "Delivered"],
  ["none", "Written without a webhook"],
];

/** The delivery filter the query (`URLSearchParams`) names, `all` when it names none of them. */
export function readDeliveryFilter(query) {
  return deliveryFilters.some(([value]) => value === query.get("delivery")) ? query.get("delivery") : "all";
}

/** Whether `event` passes the delivery filter: `none` keeps events written without a webhook, a state keeps the
 *  events whose delivery is in it. */
export function matchesDelivery(filter, event) {
  if (filter === "all") return true;
  if (filter === "none") return !event.delivery;
  return Boolean(event.delivery) && event.delivery.state === filter;
}

/** The line counting the events shown: `shown` of the `listed` latest, and whether older ones were left out. */
export function eventsCountText(shown, filter, listed, more) {
  const among = filter === "all" ? "" : ` among the latest ${listed}`;
  return `${shown} event(s)${among}${more ? "; older events are not shown" : ""}.`;
}

/** The verification attempts' query for the API, from the page's own query (`outcome` defaults to refusals). */
export function attemptQuery(query) {
  const outcome = query.get("outcome") ?? "invalid";
  return {
    limit: 50,
    app_user_id: (query.get("app_user_id") || "").trim() || undefined,
    outcome: outcome === "all" ? undefined : outcome,
  };
}

const matchNames = {
  app_user_id: "App user id",
  transaction_id: "Transaction id",
  original_transaction_id: "Original transaction id",
  google_order_id: "Google Play order id",
};

/** What a customer search matched, in words. */
export function matchName(matched) {
  return matchNames[matched] || words(matched);
}

/** The path asking Apple for an order: the one the search answered when it is an API path, else built from the id. */
export function appleOrderPath(lookup, orderID) {
  return typeof lookup === "string" && lookup.startsWith("/v1/") ? lookup : `/v1/admin/stores/apple/orders/${encodeURIComponent(orderID)}`;
}

/** What a webhook endpoint's filters let through, in words: its event types and environments (`null`: every one). */
export function endpointFilterText(endpoint) {
  const types = endpoint.event_types ? endpoint.event_types.join(", ") : "every event type";
  const environments = endpoint.environments ? endpoint.environments.join(" and ") : "every environment";
  return `${types}; ${environments}`;
}

/** An endpoint's last attempt in words: when, and its status or failure; "No attempt yet." before the first. */
export function lastAttemptText(stats) {
  if (!stats || !stats.last_attempt_at) return "No attempt yet.";
  const outcome = stats.last_error || (stats.last_status ? `HTTP ${stats.last_status}` : "no answer");
  return `${stats.last_attempt_at}: ${outcome}`;
}
