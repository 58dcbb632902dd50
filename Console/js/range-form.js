// The form choosing a report page's range (UTC days) and store environment (the range itself: pure/range.js).

import { h, field, select } from "./dom.js";
import { environments, lastDays } from "./pure/range.js";

/** The form choosing the range (and the environment, unless `withEnvironment` is false); submitting it, or a
 *  preset, goes to `route` with the new range (and the other choices of the page, `keep`). */
export function rangeForm(route, range, navigate, { withEnvironment = true, keep = {} } = {}) {
  const from = h("input", { type: "date", name: "from", value: range.from, required: true });
  const to = h("input", { type: "date", name: "to", value: range.to, required: true });
  const environment = withEnvironment ? select(environments, range.environment, { name: "environment" }) : null;
  const go = (query) => navigate(route, { ...keep, ...query, environment: environment ? environment.value : undefined });
  const presets = [7, 30, 90, 365].map((days) =>
    h("button", {
      type: "button",
      class: "button small",
      text: `Last ${days} days`,
      onclick: () => go(lastDays(days)),
    }),
  );
  return h(
    "form",
    {
      class: "range",
      "aria-label": "Range",
      onsubmit: (event) => {
        event.preventDefault();
        go({ from: from.value, to: to.value });
      },
    },
    field("From (UTC day)", from),
    field("To (UTC day, included)", to),
    environment ? field("Environment", environment) : null,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Show" }), presets),
  );
}
