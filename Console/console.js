// The console's placeholder page: signs in and out through /console/api/session. The key is sent once and never
// kept: the session lives in an HttpOnly cookie, and changes carry the session's CSRF token.
const signIn = document.getElementById("sign-in");
const signedIn = document.getElementById("signed-in");

async function show() {
  const response = await fetch("/console/api/session", { credentials: "same-origin" });
  if (response.ok) {
    const session = await response.json();
    document.getElementById("app-name").textContent = session.app_name;
    document.getElementById("app-id-shown").textContent = session.app_id;
    document.getElementById("actor").textContent = session.actor === "operator" ? "the operator" : `key ${session.key_id}`;
    signedIn.dataset.csrf = session.csrf_token;
    signIn.hidden = true;
    signedIn.hidden = false;
  } else {
    signIn.hidden = false;
    signedIn.hidden = true;
  }
}

signIn.addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = { key: document.getElementById("key").value };
  const appID = document.getElementById("app-id").value.trim();
  if (appID) body.app_id = appID;
  const response = await fetch("/console/api/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  document.getElementById("key").value = "";
  const error = document.getElementById("sign-in-error");
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    error.textContent = problem.detail || `Sign-in failed (${response.status}).`;
    return;
  }
  error.textContent = "";
  await show();
});

document.getElementById("sign-out").addEventListener("click", async () => {
  await fetch("/console/api/session", {
    method: "DELETE",
    headers: { "X-CSRF-Token": signedIn.dataset.csrf || "" },
    credentials: "same-origin",
  });
  await show();
});

show();
