// Events with their webhook deliveries, and replaying one (POST /v1/admin/events/{event_id}/replay), used by the
// customer page and the webhooks page.

import { post, segment } from "../api.js";
import { confirmButton } from "../dialog.js";
import { h, link, replace, table } from "../dom.js";
import { dateTime, words } from "../pure/format.js";
import { eventSummary } from "../pure/customer.js";
import { deliveryText } from "./customer-sections.js";

/** The replay button of `event`: asks first, then puts the delivery back in line and shows its new state. */
function replayButton(event, deliveryCell, notify) {
  return confirmButton(
    { class: "button small", text: "Replay", "aria-label": `Replay event ${event.id} (${words(event.type)})` },
    {
      title: "Replay this event?",
      message: `The webhook receives event ${event.id} (${words(event.type)}${
        event.app_user_id ? ` of ${event.app_user_id}` : ""
      }) again, with the same id, signed with the current secret. Its attempts start over.`,
      confirmLabel: "Replay event",
    },
    async (button) => {
      button.disabled = true;
      try {
        const replayed = await post(`/v1/admin/events/${segment(event.id)}/replay`);
        replace(deliveryCell, deliveryText(replayed.delivery));
        notify(`Event ${event.id} is queued for delivery again.`);
      } catch (error) {
        notify(`The event was not replayed: ${error.message}`, true);
      } finally {
        button.disabled = false;
      }
    },
  );
}

/** A table of events; `withCustomer` adds the customer column, `canReplay` (the session's role may replay) the
 *  replay buttons. */
export function eventsTable(events, { notify, withCustomer = true, caption, canReplay = true } = {}) {
  const columns = ["When", "Event", ...(withCustomer ? ["Customer"] : []), "Details", "Webhook delivery", "Action"];
  return table(
    columns,
    events.map((event) => {
      const deliveryCell = h("td", {}, deliveryText(event.delivery));
      return h(
        "tr",
        { dataset: { event: event.id, delivery: event.delivery ? event.delivery.state : "none" } },
        h("td", { text: dateTime(event.created_at) }),
        h("td", {}, h("span", { text: words(event.type) }), h("br"), h("small", { class: "muted", text: event.id })),
        withCustomer
          ? h("td", {}, event.app_user_id ? link(`/customers/${segment(event.app_user_id)}`, event.app_user_id) : "—")
          : null,
        h("td", { text: eventSummary(event) || "—" }),
        deliveryCell,
        h("td", {}, canReplay ? replayButton(event, deliveryCell, notify) : "—"),
      );
    }),
    { caption, className: "events" },
  );
}
