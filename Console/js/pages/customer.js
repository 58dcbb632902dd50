// A customer's page (#/customers/<app user id>): who they are, what they own and why, their subscriptions, purchases,
// consumables, devices, events and webhook deliveries; and support's actions, each confirmed in a dialog first:
// a promotional grant and its revocation, clearing a purchase's devices, resetting a device's content. The words and
// sums come from pure/customer.js.

import { ApiError, del, get, post, segment } from "../api.js";
import { confirmAction, confirmButton } from "../dialog.js";
import { h, append, facts, field, link, pageHeading, replace, select, table } from "../dom.js";
import { grantableEntitlements, grantExpiry, isRevocable, ltvQuery, packsText, purchasesWithDevices, trialText } from "../pure/customer.js";
import { bytes, count, dateTime, storeName } from "../pure/format.js";
import { mayCall } from "../pure/roles.js";
import { entitlementsSection, ledgerSection, ltvSection, subscriptionsSection, transactionsTable } from "./customer-sections.js";
import { eventsTable } from "./events.js";

const grantDurations = [
  ["1", "1 day"],
  ["7", "7 days"],
  ["30", "30 days"],
  ["90", "90 days"],
  ["365", "1 year"],
];

// Data.

function orNothing(promise) {
  return promise.catch((error) => ({ unavailable: error }));
}

/** The customer's history, or `{ missing }` (the 404) when there is no such customer. */
async function loadHistory(base) {
  try {
    return await get(`${base}/history`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { missing: error };
    throw error;
  }
}

/** The customer's realized LTV, converted to the app's base currency when it loaded exchange rates; per currency paid
 *  only when a day has no rate (422) or there are none. */
async function loadLTV(id) {
  const path = `/v1/admin/customers/${segment(id)}/ltv`;
  const rates = await get("/v1/admin/exchange-rates", { limit: 1 }).then((answer) => answer.rates, () => []);
  const query = ltvQuery(rates);
  try {
    return await get(path, query);
  } catch (error) {
    if (query.currency && error instanceof ApiError && error.status === 422) return get(path, { environment: query.environment });
    throw error;
  }
}

/** Why they have what they have, their latest events, their content devices, the catalog's products and their LTV.
 *  The last four are optional: a page without them still helps. */
async function loadDetails(id, base) {
  const [explanation, events, devices, products, ltv] = await Promise.all([
    get(`${base}/explain`),
    orNothing(get("/v1/admin/events", { app_user_id: id, limit: 50 })),
    orNothing(get(`${base}/content/devices`)),
    orNothing(get("/v1/admin/products")),
    orNothing(loadLTV(id)),
  ]);
  return { explanation, events, devices, products, ltv };
}

// Markup.

function missingCustomer(section, id, error) {
  replace(
    section,
    pageHeading(`Customer ${id}`),
    h("p", { role: "alert", class: "error", text: `No customer ${id}: ${error.message}` }),
    h("p", {}, h("a", { href: "#/customers", text: "Search customers" })),
  );
}

function who(customer) {
  return facts([
    ["App user id", h("code", { text: customer.app_user_id })],
    customer.aliases.length ? ["Aliases", customer.aliases.join(", ")] : null,
    ["First seen", dateTime(customer.first_seen)],
    ["Last seen", dateTime(customer.last_seen)],
    ["Refunds", count(customer.refund_count)],
    ["Free trial", trialText(customer.trial)],
  ]);
}

function eventsView(events, { notify, role }) {
  const canReplay = mayCall(role, "POST", "/v1/admin/events/event/replay");
  return events.unavailable
    ? h("p", { class: "error", role: "alert", text: `The events could not be read: ${events.unavailable.message}` })
    : eventsTable(events.events, { notify, canReplay, withCustomer: false, caption: "The customer's latest events" });
}

export async function render(section, { params, navigate, notify, session }) {
  const id = params[0];
  const base = `/v1/customers/${segment(id)}`;
  const history = await loadHistory(base);
  if (history.missing) {
    missingCustomer(section, id, history.missing);
    return;
  }
  const { explanation, events, devices, products, ltv } = await loadDetails(id, base);
  const customer = history.customer;
  const reload = (message) => navigate(`/customers/${segment(id)}`, {}, message);
  const context = { id, base, notify, reload, role: session && session.role };
  replace(section, pageHeading(`Customer ${customer.app_user_id}`), who(customer));
  append(section, h("h2", { id: "ltv", text: "Lifetime value" }), ltvSection(ltv));
  append(section, h("h2", { id: "why", text: "Entitlements and why" }), entitlementsSection(explanation));
  append(
    section,
    h("h2", { text: "Promotional grants" }),
    grantsSection(history.grants, { ...context, entitlementIDs: grantableEntitlements(products) }),
  );
  append(section, h("h2", { text: "Subscriptions" }), subscriptionsSection(customer, history.subscription_periods || []));
  append(
    section,
    h("h2", { text: "Purchases and devices" }),
    transactionsTable(history.transactions),
    purchaseDevices(history.devices, context),
    h("p", {}, link(`/verification?app_user_id=${encodeURIComponent(id)}&outcome=all`, "Every proof this customer sent, refused ones with why", { class: "verification-link" })),
  );
  append(section, h("h2", { text: "Consumables" }), ledgerSection(customer, history.ledger));
  append(section, h("h2", { text: "Content devices" }), contentDevices(devices, context));
  append(section, h("h2", { text: "Events and webhook deliveries" }), eventsView(events, context));
}

function grantForm({ id, base, entitlementIDs, notify, reload }) {
  const entitlement = h("input", { type: "text", name: "entitlement_id", required: true, list: "entitlement-ids", autocomplete: "off" });
  const duration = select(grantDurations, "30", { name: "duration" });
  const note = h("input", { type: "text", name: "note", maxlength: "500", autocomplete: "off" });
  const submit = async (event) => {
    event.preventDefault();
    const entitlementID = entitlement.value.trim();
    if (!entitlementID) {
      notify("Name the entitlement to grant.", true);
      entitlement.focus();
      return;
    }
    const expiresAt = grantExpiry(duration.value);
    const noteText = note.value.trim();
    const confirmed = await confirmAction({
      title: "Grant this entitlement?",
      message: `${id} gets ${entitlementID} from now until ${dateTime(expiresAt)}${noteText ? ` (${noteText})` : ""}.`,
      confirmLabel: "Grant",
    });
    if (!confirmed) return;
    try {
      const body = { entitlement_id: entitlementID, expires_at: expiresAt };
      if (noteText) body.note = noteText;
      const answer = await post(`${base}/grants`, body);
      reload(`Granted ${entitlementID} to ${id} until ${dateTime(answer.grant.expires_at)}.`);
    } catch (error) {
      notify(`The grant was not made: ${error.message}`, true);
    }
  };
  return h(
    "form",
    { class: "grant-form", "aria-label": "Grant an entitlement", onsubmit: submit },
    h("datalist", { id: "entitlement-ids" }, entitlementIDs.map((value) => h("option", { value }))),
    field("Entitlement", entitlement),
    field("For", duration),
    field("Note (optional)", note),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Grant entitlement" })),
  );
}

function revokeButton(grant, { id, base, notify, reload }) {
  return confirmButton(
    { class: "button small danger", text: "Revoke", "aria-label": `Revoke grant ${grant.grant_id} of ${grant.entitlement_id}` },
    {
      title: "Revoke this grant?",
      message: `${id} loses ${grant.entitlement_id} from this grant now (other sources of it stay).`,
      confirmLabel: "Revoke grant",
      danger: true,
    },
    async () => {
      try {
        await del(`${base}/grants/${segment(grant.grant_id)}`);
        reload(`Revoked grant ${grant.grant_id} of ${grant.entitlement_id}.`);
      } catch (error) {
        notify(`The grant was not revoked: ${error.message}`, true);
      }
    },
  );
}

function grantRow(grant, context) {
  let action = "—";
  const canRevoke = mayCall(context.role, "DELETE", `${context.base}/grants/${segment(grant.grant_id)}`);
  if (isRevocable(grant)) action = canRevoke ? revokeButton(grant, context) : "—";
  else if (grant.revoked_at) action = `revoked ${dateTime(grant.revoked_at)}`;
  return h(
    "tr",
    { dataset: { grant: grant.grant_id, state: grant.state } },
    h("td", {}, h("code", { text: grant.grant_id })),
    h("td", { text: grant.entitlement_id }),
    h("td", { text: grant.state }),
    h("td", { text: dateTime(grant.starts_at) }),
    h("td", { text: dateTime(grant.expires_at) }),
    h("td", { text: grant.note || "—" }),
    h("td", {}, action),
  );
}

function grantsSection(grants, context) {
  const rows = grants.map((grant) => grantRow(grant, context));
  const canGrant = mayCall(context.role, "POST", `${context.base}/grants`);
  return [table(["Grant", "Entitlement", "State", "Starts", "Expires", "Note", "Action"], rows, { caption: "Grants", className: "grants" }), canGrant ? grantForm(context) : null];
}

function purchaseDevices(devices, { notify, reload, role }) {
  const purchases = purchasesWithDevices(devices);
  if (purchases.length === 0) return h("p", { text: "No device has presented this customer's purchases." });
  return table(
    ["Purchase", "Devices", "Last seen", "Action"],
    purchases.map((purchase) => [
      h("span", {}, `${storeName(purchase.store)} `, h("code", { text: purchase.original })),
      purchase.devices.map((device) => device.device_id).join(", "),
      dateTime(purchase.lastSeen),
      !mayCall(role, "DELETE", `/v1/admin/purchases/${segment(purchase.store)}/${segment(purchase.original)}/devices`) ? "—" : confirmButton(
        { class: "button small", text: "Clear devices", "aria-label": `Clear the devices of purchase ${purchase.original}` },
        {
          title: "Clear this purchase's devices?",
          message: `The ${purchase.devices.length} device(s) that presented ${storeName(purchase.store)} purchase ${purchase.original} are forgotten; each may present it again and is counted afresh against the device limit. The purchase and its owner do not change.`,
          confirmLabel: "Clear devices",
          danger: true,
        },
        async () => {
          try {
            const answer = await del(`/v1/admin/purchases/${segment(purchase.store)}/${segment(purchase.original)}/devices`);
            reload(`Cleared ${answer.cleared} device(s) of purchase ${purchase.original}.`);
          } catch (error) {
            notify(`The devices were not cleared: ${error.message}`, true);
          }
        },
      ),
    ]),
    { caption: "Devices that presented each purchase" },
  );
}

function contentDevices(answer, { id, base, notify, reload, role }) {
  const canReset = mayCall(role, "POST", `${base}/content/reset`);
  if (answer.unavailable) {
    return h("p", { class: "muted", text: `Content downloads are not available: ${answer.unavailable.message}` });
  }
  return table(
    ["Device", "Packs", "Downloads", "Files", "Sent", "Last download", "Last reset", "Action"],
    answer.devices.map((device) => [
      h("code", { text: device.device_id }),
      packsText(device.packs),
      count(device.downloads),
      count(device.completed_files),
      bytes(device.bytes_sent),
      dateTime(device.last_download_at),
      dateTime(device.last_reset_at),
      !canReset ? "—" : confirmButton(
        { class: "button small", text: "Reset content", "aria-label": `Reset the content of device ${device.device_id}` },
        {
          title: "Reset this device's content?",
          message: `Shopkeeper forgets what device ${device.device_id} of ${id} downloaded, so it may download every pack it owns again.`,
          confirmLabel: "Reset content",
          danger: true,
        },
        async () => {
          try {
            const reset = await post(`${base}/content/reset`, { device_id: device.device_id });
            reload(`Forgot ${reset.forgotten} download(s) of device ${device.device_id}.`);
          } catch (error) {
            notify(`The device's content was not reset: ${error.message}`, true);
          }
        },
      ),
    ]),
    { caption: "Devices that downloaded content" },
  );
}
