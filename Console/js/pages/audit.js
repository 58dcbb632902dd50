// Audit log: every admin change made to the app (by a key, a console session or the operator), newest first
// (GET /v1/admin/audit-log), paged with "Older entries".

import { get } from "../api.js";
import { h, append, badge, pageHeading, replace, table } from "../dom.js";
import { dateTime } from "../pure/format.js";
import { olderButton } from "../older-button.js";

function rows(entries) {
  return entries.map((entry) =>
    h(
      "tr",
      { dataset: { action: entry.action } },
      h("td", { text: dateTime(entry.at) }),
      h(
        "td",
        {},
        entry.actor === "user" ? entry.user_email : entry.actor === "operator" ? "the operator" : `key ${entry.key_id || "?"}`,
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
  const more = olderButton(section, body.querySelector("tbody"), {
    text: "Older entries",
    firstBefore: first.next_before,
    load: (before) => get("/v1/admin/audit-log", { limit: 100, before }),
    rows: (page) => rows(page.entries),
  });
  replace(section, pageHeading("Audit log"), h("p", { class: "lede", text: "Who changed what, and when: every admin action on this app." }));
  append(section, body, h("p", { class: "actions" }, more));
}
