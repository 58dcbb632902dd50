// Team: the app's console users (GET /v1/admin/users) for its admins: invite an email with a role (the invitation
// token is shown once, to hand to the invitee), change a role, remove a lost second factor, remove a user; each
// change ends that user's sessions. The server holds every session to its role; this page only spares other roles a
// page of refusals.

import { del, get, post, put } from "../api.js";
import { confirmButton, showOnce } from "../dialog.js";
import { h, append, badge, field, pageHeading, replace, select, table } from "../dom.js";
import { dateTime } from "../pure/format.js";

const roles = [
  ["viewer", "Viewer (charts, reports)"],
  ["support", "Support (customers, grants, replays)"],
  ["developer", "Developer (catalog, offerings, webhooks, content)"],
  ["admin", "Admin (keys, users, store credentials)"],
];

function inviteForm({ navigate, notify }) {
  const email = h("input", { type: "email", name: "email", autocomplete: "off", required: true });
  const role = select(roles, "viewer", { name: "role" });
  const submit = async (event) => {
    event.preventDefault();
    try {
      const invited = await post("/v1/admin/users", { email: email.value.trim(), role: role.value });
      await showOnce({
        title: `Invitation for ${invited.user.email}`,
        message: h(
          "div",
          {},
          h("p", { text: "Give this invitation token to the invitee: it sets their password once, and is not shown again." }),
          h("p", {}, h("code", { class: "secret", text: invited.invitation_token })),
          h("p", { class: "muted", text: `Valid until ${dateTime(invited.expires_at)}.` }),
        ),
      });
      navigate("/team", {}, `Invited ${invited.user.email} as ${invited.user.role}.`);
    } catch (error) {
      notify(`The invitation was not made: ${error.message}`, true);
    }
  };
  return h(
    "form",
    { class: "key-form", "aria-label": "Invite a team member", onsubmit: submit },
    field("Email", email),
    field("Role", role),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button", text: "Invite" })),
  );
}

function roleControl(user, { navigate, notify }) {
  const picker = select(roles, user.role, { "aria-label": `Role of ${user.email}` });
  picker.addEventListener("change", async () => {
    try {
      await put(`/v1/admin/users/${encodeURIComponent(user.user_id)}`, { role: picker.value });
      navigate("/team", {}, `${user.email} is now ${picker.value}; their sessions have ended.`);
    } catch (error) {
      picker.value = user.role;
      notify(`The role was not changed: ${error.message}`, true);
    }
  });
  return picker;
}

function userActions(user, { navigate, notify }) {
  const path = `/v1/admin/users/${encodeURIComponent(user.user_id)}`;
  const act = (done, failed, call) => async () => {
    try {
      await call();
      navigate("/team", {}, done);
    } catch (error) {
      notify(`${failed}: ${error.message}`, true);
    }
  };
  const remove = confirmButton(
    { class: "button small danger", text: "Remove", "aria-label": `Remove ${user.email}` },
    { title: `Remove ${user.email}?`, message: "They can no longer sign in, and their sessions end at once.", confirmLabel: "Remove", danger: true },
    act(`Removed ${user.email}.`, "The user was not removed", () => del(path)),
  );
  if (!user.totp_enabled) return remove;
  const reset = confirmButton(
    { class: "button small", text: "Remove second factor", "aria-label": `Remove the second factor of ${user.email}` },
    { title: `Remove the second factor of ${user.email}?`, message: "They sign in with their password alone until they enroll again.", confirmLabel: "Remove second factor" },
    act(`Removed the second factor of ${user.email}.`, "The second factor was not removed", () => del(`${path}/totp`)),
  );
  return h("span", {}, reset, " ", remove);
}

export async function render(section, actions) {
  const { users } = await get("/v1/admin/users");
  replace(
    section,
    pageHeading("Team"),
    h("p", { class: "lede", text: "Who signs in to this app's console, and what their role lets them do." }),
  );
  append(
    section,
    table(
      ["Email", "Role", "Status", "Second factor", "Since", ""],
      users.map((user) => [
        user.email,
        roleControl(user, actions),
        badge(user.status, user.status === "active" ? "good" : "warn"),
        user.totp_enabled ? "on" : "off",
        dateTime(user.created_at),
        userActions(user, actions),
      ]),
      { caption: "Console users" },
    ),
    h("h2", { text: "Invite" }),
    inviteForm(actions),
  );
}
