// Accepting an invitation on the sign-in screen: the invitee trades the token an admin handed them for a password
// (POST /console/api/invitation, no session: the token is the proof), then signs in with the team form above, as
// the notice says. The form is added under the sign-in forms when this module loads.

import { ApiError, api } from "./api.js";
import { field, h } from "./dom.js";

/** What the invitee reads when the token is refused. */
function refusal(error) {
  if (!(error instanceof ApiError)) return String(error);
  if (error.code === "invitation_invalid") return "This invitation is unknown, used already or expired: ask an admin for a new one.";
  return `The password was not set: ${error.message}`;
}

function invitationForm() {
  const token = h("input", { id: "invitation-token", name: "token", type: "text", autocomplete: "off", spellcheck: "false", required: true });
  const password = h("input", { id: "invitation-password", name: "password", type: "password", autocomplete: "new-password", minlength: "10", required: true });
  const problem = h("p", { id: "invitation-error", class: "error", role: "alert" });
  const accept = async (event) => {
    const button = event.submitter || event.target.querySelector("button");
    event.preventDefault();
    problem.textContent = token.value.trim() && password.value ? "" : "Enter the invitation token and a new password.";
    if (problem.textContent) return;
    button.disabled = true;
    await api("POST", "/console/api/invitation", { body: { token: token.value.trim(), password: password.value } }).then(
      () => {
        event.target.reset();
        const notice = document.getElementById("sign-in-notice");
        notice.textContent = "Your password is set: sign in as a member of the team with the app id, your email and it.";
        notice.hidden = false;
        document.getElementById("team-sign-in-app").focus();
      },
      (error) => {
        problem.textContent = refusal(error);
      },
    );
    button.disabled = false;
  };
  return [
    h("h2", { id: "invitation-title", text: "Invited? Set your password" }),
    h(
      "form",
      { id: "invitation-form", class: "stack", novalidate: true, "aria-labelledby": "invitation-title", onsubmit: accept },
      field("Invitation token (from the admin who invited you)", token),
      field("New password (10 bytes or more)", password),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "button", id: "invitation-submit", text: "Set password" })),
      problem,
    ),
  ];
}

document.getElementById("sign-in").append(...invitationForm());
