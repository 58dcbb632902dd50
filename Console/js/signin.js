// Signing in: an app's secret key opens a session at once; the operator key first lists the apps (the key is sent
// in an Authorization header for that one read), then opens a session for the app picked. The key stays in the
// password field until it is sent to /console/api/session and is cleared from it right after: nothing keeps it
// (no storage, no cookie this code can read). A member of the app's team signs in with the app id, an email and a
// password, and the one-time code of an authenticator app when the server asks for it (`totp_required`).

import { ApiError, api } from "./api.js";
import { h, replace } from "./dom.js";
import "./invitation.js";

const section = document.getElementById("sign-in");
const form = document.getElementById("sign-in-form");
const keyInput = document.getElementById("sign-in-key");
const appField = document.getElementById("sign-in-app-field");
const appPicker = document.getElementById("sign-in-app");
const submit = document.getElementById("sign-in-submit");
const errorLine = document.getElementById("sign-in-error");
const notice = document.getElementById("sign-in-notice");

let onSignedIn = () => {};
/** The key the app list was read with: picking an app signs in with the same key. */
let listedFor = null;

function reset() {
  keyInput.value = "";
  listedFor = null;
  appField.hidden = true;
  replace(appPicker);
  submit.textContent = "Sign in";
}

/** Shows the form, with `message` above it (a session that ended, a sign-out). */
export function showSignIn(message, signedIn) {
  onSignedIn = signedIn;
  reset();
  notice.textContent = message || "";
  notice.hidden = !message;
  errorLine.textContent = "";
  section.hidden = false;
  document.title = "Sign in · Shopkeeper console";
  keyInput.focus();
}

export function hideSignIn() {
  section.hidden = true;
  reset();
}

/** The operator API's apps for `key`, or `null` when the key is not the operator key. */
async function appsFor(key) {
  let response;
  try {
    response = await fetch("/operator/v1/apps", {
      headers: { Authorization: `Bearer ${key}`, Accept: "application/json" },
      credentials: "omit",
      cache: "no-store",
    });
  } catch (error) {
    throw new ApiError(0, { detail: error.message });
  }
  if (response.status === 401) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, body);
  return body.apps || [];
}

async function openSession(body) {
  const session = await api("POST", "/console/api/session", { body });
  reset();
  onSignedIn(session);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  errorLine.textContent = "";
  const key = keyInput.value.trim();
  if (!key) {
    errorLine.textContent = "Enter a secret key or the operator key.";
    keyInput.focus();
    return;
  }
  submit.disabled = true;
  try {
    if (listedFor === key && !appField.hidden) {
      await openSession({ key, app_id: appPicker.value });
      return;
    }
    if (key.startsWith("sk_") || key.startsWith("pk_")) {
      await openSession({ key });
      return;
    }
    const apps = await appsFor(key);
    if (apps === null) {
      errorLine.textContent = "This key is not accepted: give an app's secret key (sk_…) or the operator key.";
      keyInput.focus();
      return;
    }
    if (apps.length === 0) {
      errorLine.textContent = "The operator key is right, but there is no app yet: create one with shopkeeper apps create.";
      return;
    }
    listedFor = key;
    replace(appPicker, apps.map((app) => h("option", { value: app.app_id, text: `${app.name} (${app.app_id})` })));
    appField.hidden = false;
    submit.textContent = "Sign in to this app";
    appPicker.focus();
  } catch (error) {
    errorLine.textContent = `Sign-in failed: ${error.message}`;
    if (listedFor === key) appPicker.focus();
    else keyInput.focus();
  } finally {
    submit.disabled = false;
  }
});

keyInput.addEventListener("input", () => {
  if (listedFor !== null && keyInput.value.trim() !== listedFor) {
    listedFor = null;
    appField.hidden = true;
    submit.textContent = "Sign in";
  }
});

const teamForm = document.getElementById("team-sign-in-form");
const teamApp = document.getElementById("team-sign-in-app");
const teamEmail = document.getElementById("team-sign-in-email");
const teamPassword = document.getElementById("team-sign-in-password");
const teamCodeField = document.getElementById("team-sign-in-code-field");
const teamCode = document.getElementById("team-sign-in-code");
const teamSubmit = document.getElementById("team-sign-in-submit");
const teamError = document.getElementById("team-sign-in-error");

/** The words shown for a refused team sign-in. */
function teamRefusal(error) {
  if (error.code === "totp_required") return "Enter the one-time code from your authenticator app.";
  if (error.code === "invalid_credentials") return "The app id, email or password is wrong.";
  if (error.code === "totp_invalid") return "The code is wrong or was used already: wait for the next one.";
  return `Sign-in failed: ${error.message}`;
}

teamForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  teamError.textContent = "";
  const body = { app_id: teamApp.value.trim(), email: teamEmail.value.trim(), password: teamPassword.value };
  if (!body.app_id || !body.email || !body.password) {
    teamError.textContent = "Enter the app id, your email and your password.";
    return;
  }
  if (!teamCodeField.hidden && teamCode.value.trim()) body.totp_code = teamCode.value.trim();
  teamSubmit.disabled = true;
  try {
    await openSession(body);
    teamPassword.value = "";
    teamCode.value = "";
    teamCodeField.hidden = true;
  } catch (error) {
    if (error instanceof ApiError && error.code === "totp_required") {
      teamCodeField.hidden = false;
      teamCode.focus();
    }
    teamError.textContent = teamRefusal(error);
  } finally {
    teamSubmit.disabled = false;
  }
});
