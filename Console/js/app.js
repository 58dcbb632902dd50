// The console's entry point: who is signed in, signing in and out, and the pages behind hash routes
// (#/overview, #/customers/<id>, ...). Each page is a module with `render(section, route)`; they all call the public
// API through api.js with the session cookie.

import { ApiError, api, useSession } from "./api.js";
import { h, replace } from "./dom.js";
import { showSignIn, hideSignIn } from "./signin.js";
import { maySee } from "./pure/roles.js";
import * as overview from "./pages/overview.js";
import * as charts from "./pages/charts.js";
import * as customers from "./pages/customers.js";
import * as customer from "./pages/customer.js";
import * as catalog from "./pages/catalog.js";
import * as product from "./pages/product.js";
import * as catalogImport from "./pages/import.js";
import * as content from "./pages/content.js";
import * as offerings from "./pages/offerings.js";
import * as offering from "./pages/offering.js";
import * as experiments from "./pages/experiments.js";
import * as experiment from "./pages/experiment.js";
import * as webhooks from "./pages/webhooks.js";
import * as settings from "./pages/settings.js";
import * as audit from "./pages/audit.js";
import * as team from "./pages/team.js";
import * as account from "./pages/account.js";
import * as verification from "./pages/verification.js";

const view = document.getElementById("view");
const top = document.getElementById("top");
const status = document.getElementById("status");
const alertLine = document.getElementById("alert");

/** The signed-in session (`GET /console/api/session`), or `null`. */
let session = null;
let renderCounter = 0;
/** What the next page shows in the status line (the outcome of the action that led to it). */
let pendingMessage = "";

const routes = [
  { pattern: /^\/overview$/, page: overview, section: "overview" },
  { pattern: /^\/charts$/, page: charts, section: "charts" },
  { pattern: /^\/customers$/, page: customers, section: "customers" },
  { pattern: /^\/customers\/(.+)$/, page: customer, section: "customers" },
  { pattern: /^\/catalog$/, page: catalog, section: "catalog" },
  { pattern: /^\/catalog\/import$/, page: catalogImport, section: "catalog" },
  { pattern: /^\/catalog\/(.+)$/, page: product, section: "catalog" },
  { pattern: /^\/offerings$/, page: offerings, section: "offerings" },
  { pattern: /^\/offerings\/(.+)$/, page: offering, section: "offerings" },
  { pattern: /^\/experiments$/, page: experiments, section: "experiments" },
  { pattern: /^\/experiments\/(.+)$/, page: experiment, section: "experiments" },
  { pattern: /^\/content$/, page: content, section: "content" },
  { pattern: /^\/webhooks$/, page: webhooks, section: "webhooks" },
  { pattern: /^\/settings$/, page: settings, section: "settings" },
  { pattern: /^\/audit$/, page: audit, section: "audit" },
  { pattern: /^\/team$/, page: team, section: "team" },
  { pattern: /^\/account$/, page: account, section: "account" },
  { pattern: /^\/verification$/, page: verification, section: "verification" },
];

/** Shows a short message in the status line (read out by screen readers); an error is shown as an alert. */
export function notify(message, isError = false) {
  status.textContent = isError ? "" : message;
  alertLine.textContent = isError ? message : "";
}

/** The session the pages act in. */
export function currentSession() {
  return session;
}

/** Goes to `route` (`/customers/alice`), with `query` parameters; `message` is shown once it is there. */
export function navigate(route, query = {}, message = "") {
  pendingMessage = message;
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") parameters.set(name, value);
  }
  const text = parameters.toString();
  const target = `#${route}${text ? `?${text}` : ""}`;
  if (location.hash === target) render();
  else location.hash = target;
}

function parseHash() {
  const hash = location.hash.startsWith("#/") ? location.hash.slice(1) : "/overview";
  const [path, queryText = ""] = hash.split("?");
  return { path: path === "/" || path === "" ? "/overview" : path, query: new URLSearchParams(queryText) };
}

async function render() {
  if (!session) return;
  const { path, query } = parseHash();
  const route = routes.find((candidate) => candidate.pattern.test(path));
  const number = ++renderCounter;
  notify(pendingMessage);
  pendingMessage = "";
  for (const anchor of document.querySelectorAll("#nav a")) {
    if (route && anchor.dataset.section === route.section) anchor.setAttribute("aria-current", "page");
    else anchor.removeAttribute("aria-current");
  }
  const section = h("section", { class: "page", "aria-busy": "true" });
  replace(view, section);
  if (!route) {
    replace(section, h("h1", { tabindex: "-1", text: "Not found" }), h("p", { text: `No page at ${path}.` }));
    section.removeAttribute("aria-busy");
    view.dataset.rendered = String(number);
    return;
  }
  replace(section, h("p", { class: "loading", text: "Loading…" }));
  try {
    const parameters = (path.match(route.pattern) || []).slice(1).map((value) => decodeURIComponent(value));
    await route.page.render(section, { params: parameters, query, session, navigate, notify });
  } catch (error) {
    if (number !== renderCounter) return;
    replace(
      section,
      h("h1", { tabindex: "-1", text: "Something went wrong" }),
      h("p", { class: "error", role: "alert", text: error instanceof ApiError ? error.message : String(error) }),
    );
  }
  if (number !== renderCounter) return;
  section.removeAttribute("aria-busy");
  // How many pages were rendered: lets a script (the browser tests) tell a new page from the one before.
  view.dataset.rendered = String(number);
  const heading = section.querySelector("h1");
  document.title = `${heading ? heading.textContent : "Console"} · ${session.app_name} · Shopkeeper`;
  // A new page (or the same one after an action) starts at its top, where the outcome of the action is shown.
  if (heading && !section.contains(document.activeElement)) {
    window.scrollTo(0, 0);
    heading.focus({ preventScroll: true });
  }
}

function renderWho() {
  const who = document.getElementById("who");
  let actor = session.actor === "operator" ? "the operator" : `secret key ${session.key_id || ""}`.trim();
  if (session.actor === "user") actor = `${session.user_email} (${session.role})`;
  // The nav shows the pages the session's role can open (the server refuses the others; a link would only lead there).
  for (const anchor of document.querySelectorAll("#nav a")) anchor.parentElement.hidden = !maySee(session.role, anchor.dataset.section);
  const parts = [
    h("span", { class: "app-name", id: "app-name", text: session.app_name }),
    h("span", { class: "muted", text: ` (${session.app_id}) as ${actor}` }),
  ];
  if (session.actor === "operator") parts.push(appSwitcher());
  parts.push(h("button", { type: "button", class: "button small", id: "sign-out", text: "Sign out", onclick: signOut }));
  replace(who, parts);
}

function appSwitcher() {
  const picker = h("select", { id: "switch-app", "aria-label": "App" }, h("option", { value: session.app_id, text: session.app_name }));
  const form = h(
    "form",
    {
      class: "inline",
      onsubmit: async (event) => {
        event.preventDefault();
        if (picker.value === session.app_id) return;
        try {
          const switched = await api("PUT", "/console/api/session", { body: { app_id: picker.value } });
          start(switched);
        } catch (error) {
          notify(`The app was not switched: ${error.message}`, true);
        }
      },
    },
    picker,
    h("button", { type: "submit", class: "button small", text: "Switch app" }),
  );
  api("GET", "/operator/v1/apps")
    .then((answer) => {
      replace(
        picker,
        answer.apps.map((app) => h("option", { value: app.app_id, selected: app.app_id === session.app_id, text: `${app.name} (${app.app_id})` })),
      );
    })
    .catch((error) => notify(`The apps could not be listed: ${error.message}`, true));
  return form;
}

async function signOut() {
  try {
    await api("DELETE", "/console/api/session");
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) {
      notify(`Signing out failed: ${error.message}`, true);
      return;
    }
  }
  stop("You are signed out.");
}

/** Shows the pages for `signedIn`. */
function start(signedIn) {
  session = signedIn;
  useSession(session);
  hideSignIn();
  top.hidden = false;
  view.hidden = false;
  renderWho();
  if (!location.hash.startsWith("#/")) history.replaceState(null, "", "#/overview");
  render();
}

/** Back to the sign-in form, with `message`. */
function stop(message) {
  notify("");
  session = null;
  useSession(null);
  top.hidden = true;
  view.hidden = true;
  replace(view);
  showSignIn(message, start);
}

window.addEventListener("hashchange", () => render());
window.addEventListener("console:unauthorized", () => {
  if (session) stop("Your session has ended. Sign in again.");
});

async function boot() {
  try {
    start(await api("GET", "/console/api/session"));
  } catch (error) {
    const message = error instanceof ApiError && error.status === 401 ? "" : error.message;
    stop(message);
  }
}

boot();
