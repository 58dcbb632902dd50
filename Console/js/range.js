// The date range (UTC days) and store environment a report page shows, kept in the route's query
// (#/overview?from=2026-03-01&to=2026-03-31&environment=production) so that a range can be linked and reloaded.

import { h, field, select } from "./dom.js";
import { addDays, isDay, today } from "./format.js";

export const environments = [
  ["production", "Production"],
  ["sandbox", "Sandbox"],
  ["xcode", "Xcode"],
  ["local_testing", "Local testing"],
];

/** The range the query asks for, or the last `days` days up to today; `problem` says what was wrong with it. */
export function readRange(query, days = 42) {
  const end = today();
  let to = query.get("to") || end;
  let from = query.get("from") || addDays(to, -(days - 1));
  let problem = null;
  if (!isDay(from) || !isDay(to)) {
    problem = "The range's days must be real dates (YYYY-MM-DD); showing the default range.";
    to = end;
    from = addDays(end, -(days - 1));
  } else if (from > to) {
    problem = "The range starts after it ends; the two days were swapped.";
    [from, to] = [to, from];
  }
  const environment = environments.some(([value]) => value === query.get("environment"))
    ? query.get("environment")
    : "production";
  return { from, to, environment, problem };
}

/** The form choosing the range (and the environment, unless `withEnvironment` is false); submitting it, or a
 *  preset, goes to `route` with the new range. */
export function rangeForm(route, range, navigate, { withEnvironment = true } = {}) {
  const from = h("input", { type: "date", name: "from", value: range.from, required: true });
  const to = h("input", { type: "date", name: "to", value: range.to, required: true });
  const environment = withEnvironment ? select(environments, range.environment, { name: "environment" }) : null;
  const go = (query) => navigate(route, { ...query, environment: environment ? environment.value : undefined });
  const presets = [7, 30, 90, 365].map((days) =>
    h("button", {
      type: "button",
      class: "button small",
      text: `Last ${days} days`,
      onclick: () => go({ from: addDays(today(), -(days - 1)), to: today() }),
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
