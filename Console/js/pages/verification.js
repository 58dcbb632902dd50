// Refused proofs: every proof the verifier was asked to verify, newest first (GET /v1/admin/verification-attempts),
// filtered by customer and outcome, paged with "Older attempts": what support reads to answer "why was my purchase
// refused". A customer's page links here with its id.

import { get, segment } from "../api.js";
import { h, append, badge, field, link, pageHeading, replace, select, table } from "../dom.js";
import { dateTime, words } from "../pure/format.js";
import { attemptQuery } from "../pure/lists.js";
import { olderButton } from "../older-button.js";

const outcomeTones = { verified: "good", invalid: "bad", retryable: "warn" };

function rows(attempts) {
  return attempts.map((attempt) =>
    h(
      "tr",
      { dataset: { outcome: attempt.outcome } },
      h("td", { text: dateTime(attempt.attempted_at) }),
      h("td", {}, attempt.app_user_id ? link(`/customers/${segment(attempt.app_user_id)}`, attempt.app_user_id) : "—"),
      h("td", { text: words(attempt.proof_kind) }),
      h("td", {}, badge(words(attempt.outcome), outcomeTones[attempt.outcome] || "neutral")),
      h("td", {}, attempt.code ? h("code", { class: "code", text: attempt.code }) : "—"),
      h("td", { text: attempt.transaction_ids.join(", ") || "—" }),
      h("td", {}, attempt.request_id ? h("code", { text: attempt.request_id }) : "—"),
    ),
  );
}

function filters(query, navigate) {
  const customer = h("input", { type: "search", name: "app_user_id", value: query.get("app_user_id") || "", autocomplete: "off" });
  const outcome = select(
    [["invalid", "Refused"], ["retryable", "Store unavailable"], ["verified", "Verified"], ["all", "All"]],
    query.get("outcome") ?? "invalid",
    { name: "outcome" },
  );
  return h(
    "form",
    {
      class: "search",
      onsubmit: (event) => {
        event.preventDefault();
        navigate("/verification", { app_user_id: customer.value.trim(), outcome: outcome.value });
      },
    },
    field("Customer", customer, "An app user id, as the app sent it."),
    field("Outcome", outcome),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Show" })),
  );
}

export async function render(section, { query, navigate }) {
  const apiQuery = attemptQuery(query);
  const first = await get("/v1/admin/verification-attempts", apiQuery);
  const body = table(["When", "Customer", "Proof", "Outcome", "Why", "Transactions", "Request id"], rows(first.attempts), {
    caption: "Verification attempts, newest first",
  });
  replace(
    section,
    pageHeading("Refused proofs"),
    h("p", { class: "lede", text: "Every proof of purchase the server was asked to verify, and why it refused the ones it refused." }),
    filters(query, navigate),
  );
  const more = olderButton(section, body.querySelector("tbody"), {
    text: "Older attempts",
    firstBefore: first.next_before,
    load: (before) => get("/v1/admin/verification-attempts", { ...apiQuery, before }),
    rows: (page) => rows(page.attempts),
  });
  append(section, h("div", { id: "attempts" }, body), h("p", { class: "actions" }, more));
}
