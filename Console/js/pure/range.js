// The date range (UTC days) and store environment a report page shows, kept in the route's query
// (#/overview?from=2026-03-01&to=2026-03-31&environment=production) so that a range can be linked and reloaded.
// Pure: the form choosing a range is range-form.js.

import { addDays, isDay, today } from "./format.js";

export const environments = [
  ["production", "Production"],
  ["sandbox", "Sandbox"],
  ["xcode", "Xcode"],
  ["local_testing", "Local testing"],
];

/** The last `days` days up to `end` (today), both included. */
export function lastDays(days, end = today()) {
  return { from: addDays(end, -(days - 1)), to: end };
}

/** The range the query (`URLSearchParams`) asks for, or the last `days` days up to `end` (today); `problem` says
 *  what was wrong with it. */
export function readRange(query, days = 42, end = today()) {
  let to = query.get("to") || end;
  let from = query.get("from") || addDays(to, -(days - 1));
  let problem = null;
  if (!isDay(from) || !isDay(to)) {
    problem = "The range's days must be real dates (YYYY-MM-DD); showing the default range.";
    ({ from, to } = lastDays(days, end));
  } else if (from > to) {
    problem = "The range starts after it ends; the two days were swapped.";
    [from, to] = [to, from];
  }
  const environment = environments.some(([value]) => value === query.get("environment"))
    ? query.get("environment")
    : "production";
  return { from, to, environment, problem };
}
