// Webhooks and events: the webhook URL (PUT /v1/admin/entitlements/settings) and its signing secret's rotation
// (POST /v1/admin/entitlements/webhook-secret; a new secret is shown once), every webhook endpoint with its filters
// and delivery figures (GET /v1/admin/webhook-endpoints and .../{id}/stats), and the app's events with their
// deliveries (GET /v1/admin/events), filtered to dead letters or pending ones, each replayable.

import { collect, post, put, get } from "../api.js";
import { confirmButton, showOnce } from "../dialog.js";
import { h, append, badge, field, pageHeading, replace, select, table } from "../dom.js";
import { count } from "../pure/format.js";
import { deliveryFilters, endpointFilterText, eventsCountText, lastAttemptText, matchesDelivery, readDeliveryFilter } from "../pure/lists.js";
import { eventsTable } from "./events.js";
import { mayCall } from "../pure/roles.js";

function secretMessage(secret) {
  return h(
    "div",
    {},
    h("p", { text: "Store this signing secret now: it is not shown again. Receivers check each delivery's Shopkeeper-Signature with it." }),
    h("p", {}, h("code", { class: "secret", id: "webhook-secret", text: secret })),
  );
}

// Data.

/** Every endpoint with its delivery figures. */
async function loadEndpoints() {
  const { endpoints } = await get("/v1/admin/webhook-endpoints");
  const stats = await Promise.all(endpoints.map((endpoint) => get(`/v1/admin/webhook-endpoints/${endpoint.id}/stats`)));
  return endpoints.map((endpoint, index) => ({ endpoint, stats: stats[index] }));
}

/** The webhook settings, the endpoints and the latest events (more of them when a filter will leave some out). */
async function load(filter, customer) {
  const [settings, endpoints, listed] = await Promise.all([
    get("/v1/admin/entitlements/settings"),
    loadEndpoints(),
    collect("/v1/admin/events", "events", {
      query: { app_user_id: customer || undefined },
      pageSize: 200,
      limit: filter === "all" ? 200 : 2000,
    }),
  ]);
  return { settings, endpoints, listed };
}

// Markup.

function removeButton(save) {
  return confirmButton(
    { class: "button danger", text: "Remove webhook" },
    {
      title: "Remove the webhook?",
      message: "Events are still recorded, but nothing is delivered; pending deliveries end as dead letters (replayable later).",
      confirmLabel: "Remove webhook",
      danger: true,
    },
    () => save(null),
  );
}

function rotateButton(errorBox, notify) {
  return confirmButton(
    { class: "button", text: "Rotate signing secret" },
    {
      title: "Rotate the webhook's signing secret?",
      message: "A new secret signs every delivery from now on; the old one stops working at once. Update your receiver right after.",
      confirmLabel: "Rotate secret",
      danger: true,
    },
    async () => {
      try {
        const answer = await post("/v1/admin/entitlements/webhook-secret");
        await showOnce({ title: "The new signing secret", message: secretMessage(answer.webhook_secret) });
        notify("The webhook's signing secret was rotated.");
      } catch (error) {
        errorBox.textContent = `The secret was not rotated: ${error.message}`;
      }
    },
  );
}

function webhookForm(settings, { navigate, notify }) {
  const url = h("input", { type: "url", name: "webhook_url", value: settings.webhook_url || "", autocomplete: "off", spellcheck: "false" });
  const errorBox = h("p", { class: "error", role: "alert" });
  const save = async (value) => {
    errorBox.textContent = "";
    try {
      const answer = await put("/v1/admin/entitlements/settings", { webhook_url: value });
      if (answer.webhook_secret) await showOnce({ title: "The webhook's signing secret", message: secretMessage(answer.webhook_secret) });
      navigate("/webhooks", {}, value ? `The webhook URL is now ${value}.` : "The webhook is removed.");
    } catch (error) {
      errorBox.textContent = `The webhook was not changed: ${error.message}`;
    }
  };
  const submit = async (event) => {
    event.preventDefault();
    const value = url.value.trim();
    if (!value) {
      errorBox.textContent = "Give the webhook's URL (http or https), or remove the webhook.";
      url.focus();
      return;
    }
    await save(value);
  };
  return h(
    "form",
    { class: "webhook-form", "aria-label": "Webhook", onsubmit: submit },
    field("Webhook URL", url, "Every event is delivered here, signed, and retried with backoff until it is answered 2xx or given up (a dead letter)."),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "button primary", text: "Save webhook URL" }),
      settings.webhook_url ? removeButton(save) : null,
      settings.webhook_url ? rotateButton(errorBox, notify) : null,
    ),
    errorBox,
  );
}

function endpointsTable(endpoints) {
  const rows = endpoints.map(({ endpoint, stats }) => [
    h("code", { text: endpoint.url }),
    endpointFilterText(endpoint),
    endpoint.format === "cloudevents" ? "CloudEvents" : "Shopkeeper",
    endpoint.enabled ? badge("enabled", "good") : badge("disabled", "neutral"),
    count(stats.delivered),
    stats.failing > 0 ? badge(count(stats.failing), "warn") : count(stats.failing),
    stats.dead > 0 ? badge(count(stats.dead), "bad") : count(stats.dead),
    lastAttemptText(stats),
  ]);
  return table(["URL", "Events", "Format", "State", "Delivered", "Failing", "Dead", "Last attempt"], rows, {
    caption: "Each event goes to every enabled endpoint whose filters match it, once each.",
    className: "webhook-endpoints",
  });
}

function filterForm(filter, customer, navigate) {
  const deliveryFilter = select(deliveryFilters, filter, { name: "delivery" });
  const customerFilter = h("input", { type: "search", name: "customer", value: customer, autocomplete: "off" });
  return h(
    "form",
    {
      class: "filters",
      "aria-label": "Filter events",
      onsubmit: (event) => {
        event.preventDefault();
        navigate("/webhooks", { delivery: deliveryFilter.value === "all" ? undefined : deliveryFilter.value, customer: customerFilter.value.trim() });
      },
    },
    field("Delivery", deliveryFilter),
    field("Customer (app user id)", customerFilter),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button", text: "Filter" })),
  );
}

export async function render(section, { query, navigate, notify, session }) {
  const canReplay = mayCall(session && session.role, "POST", "/v1/admin/events/event/replay");
  const filter = readDeliveryFilter(query);
  const customer = (query.get("customer") || "").trim();
  const { settings, endpoints, listed } = await load(filter, customer);
  const events = listed.items.filter((event) => matchesDelivery(filter, event));
  replace(
    section,
    pageHeading("Webhooks and events"),
    h("h2", { text: "Webhook" }),
    settings.webhook_url
      ? h("p", {}, "Events are delivered to ", h("code", { id: "webhook-url", text: settings.webhook_url }), ".")
      : h("p", { id: "webhook-url", text: "No webhook: events are recorded but not delivered." }),
    webhookForm(settings, { navigate, notify }),
    h("h2", { text: "Endpoints" }),
    endpointsTable(endpoints),
    h("h2", { text: "Events" }),
    filterForm(filter, customer, navigate),
  );
  append(
    section,
    h("p", { class: "muted", id: "events-count", text: eventsCountText(events.length, filter, listed.items.length, listed.more) }),
    eventsTable(events, { notify, canReplay, caption: deliveryFilters.find(([value]) => value === filter)[1] }),
  );
}
