// Audit log: every admin change made to the app (by a key, a console session or the operator), newest first
// (GET /v1/admin/audit-log), paged with "Older entries".

import { get } from "../api.js";
import { h, append, badge, pageHeading, replace, table } from "../dom.js";
import { dateTime } from "../pure/format.js";
import { hasMore } from "../pure/query.js";

function rows(entries) {
  return entries.map((entry) =>
    h(
      "tr",
      { dataset: { action: entry.action } },
      h("td", { text: dateTime(entry.at) }),
      h(
        "td",
        {},
        entry.actor === "operator" ? "the operator" : `key ${entry.key_id || "?"}`,
        entry.session_id ? h("small", { class: "muted", text: ` (console session ${entry.session_id})` }) : null,
      ),
      h("td", {}, h("code", { text: entry.action })),
      h("td", { text: entry.summary }),
      h("td", {}, h("code", { text: `${entry.method} ${entry.path}` })),
      h("td", {}, badge(String(entry.status), entry.status < 400 ? "good" : "bad")),
    ),
  );
}

export async function render(section) {
  const first = await get("/v1/admin/audit-log", { limit: 100 });
  const body = table(["When", "Who", "Action", "What", "Request", "Status"], rows(first.entries), { caption: "Admin changes, newest first" });
  const tbody = body.querySelector("tbody");
  let before = first.next_before;
  const more = h("button", {
    type: "button",
    class: "button",
    text: "Older entries",
    hidden: !hasMore(before),
    onclick: async () => {
      more.disabled = true;
      try {
        const page = await get("/v1/admin/audit-log", { limit: 100, before });
        tbody.append(...rows(page.entries));
        before = page.next_before;
        more.hidden = !hasMore(before);
      } catch (error) {
        append(section, h("p", { class: "error", role: "alert", text: `Older entries could not be read: ${error.message}` }));
      } finally {
        more.disabled = false;
      }
    },
  });
  replace(section, pageHeading("Audit log"), h("p", { class: "lede", text: "Who changed what, and when: every admin action on this app." }));
  append(section, body, h("p", { class: "actions" }, more));
}
