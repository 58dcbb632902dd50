// Your account (#/account): who the session is, with which role, and turning on a second factor for a console user's
// own sign-in: a new TOTP secret (POST /console/api/session/totp) to type or paste into an authenticator app, then
// one of its codes to turn it on (PUT). Wrong codes count as failed sign-ins do (too many: `429 totp_locked`). A
// session opened with a key has no account: its key is its credential.

import { post, put } from "../api.js";
import { facts, field, h, pageHeading, replace } from "../dom.js";
import { dateTime } from "../pure/format.js";

function confirmForm(enrollment, { navigate, notify }) {
  const code = h("input", {
    type: "text",
    name: "code",
    inputmode: "numeric",
    autocomplete: "one-time-code",
    pattern: "[0-9]{6}",
    maxlength: "7",
    required: true,
  });
  return h(
    "form",
    {
      class: "stack",
      id: "totp-confirm",
      "aria-label": "Confirm the second factor",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await put("/console/api/session/totp", { code: code.value.trim() });
          navigate("/account", {}, "Your second factor is on: signing in now also takes the current code.");
        } catch (error) {
          notify(`The second factor was not turned on: ${error.message}`, true);
        }
      },
    },
    h("p", { text: "Add this secret to your authenticator app (its key, or the otpauth link), then enter the code it shows." }),
    facts([
      ["Secret", h("code", { class: "secret", id: "totp-secret", text: enrollment.secret })],
      ["Link", h("code", { class: "secret", id: "totp-uri", text: enrollment.otpauth_uri })],
    ]),
    field("Code from your authenticator app", code),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Turn on" })),
  );
}

export async function render(section, context) {
  const { session, notify } = context;
  replace(section, pageHeading("Your account"));
  if (session.actor !== "user") {
    section.append(
      h("p", { class: "notice", text: "This session was opened with a key: the key is its credential, and there is no account to change." }),
    );
    return;
  }
  const holder = h("div", { id: "totp-enrollment" });
  /** Asks for a new secret and shows the form confirming it. */
  const setUp = async (event) => {
    event.preventDefault();
    const enrollment = await post("/console/api/session/totp").catch((error) => {
      notify(`A second factor could not be set up: ${error.message}`, true);
      return null;
    });
    if (!enrollment) return;
    replace(holder, confirmForm(enrollment, context));
    holder.querySelector("input[name=code]").focus();
  };
  const begin = h(
    "form",
    { class: "actions", "aria-label": "Set up a second factor", onsubmit: setUp },
    h("button", { type: "submit", class: "button", id: "totp-begin", text: "Set up a second factor" }),
  );
  section.append(
    facts([
      ["Email", session.user_email],
      ["Role", session.role],
      ["Session ends", dateTime(session.expires_at)],
    ]),
    h("h2", { text: "Second factor" }),
    h("p", {
      text: "With a second factor, signing in also takes a one-time code from an authenticator app. Setting one up again replaces a secret not yet confirmed; an admin can remove a lost one from the Team page.",
    }),
    begin,
    holder,
  );
}
