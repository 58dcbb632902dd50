// Settings: the store credentials' status (set or not: never a secret; GET /v1/admin/stores), the entitlement
// settings (transfer policy, device limit, sandbox purchases; PUT /v1/admin/entitlements/settings), the customer
// boundary's mode, and the app's API keys (listed, created: shown once, revoked after a confirmation).

import { del, get, post, put } from "../api.js";
import { confirmButton, showOnce } from "../dialog.js";
import { h, append, badge, facts, field, pageHeading, replace, select, table } from "../dom.js";
import { dateTime, words } from "../pure/format.js";

const transferPolicies = [
  ["transfer", "Transfer: the purchase moves to the customer who presents it"],
  ["keep_with_original", "Keep with the original customer"],
  ["transfer_if_no_active", "Transfer only when the owner has no active entitlement from it"],
];

// Data.

/** The store credentials' status, the entitlement settings, the keys and the customer boundary. */
async function load() {
  const [stores, settings, keys, boundary] = await Promise.all([
    get("/v1/admin/stores"),
    get("/v1/admin/entitlements/settings"),
    get("/v1/admin/keys"),
    get("/v1/admin/customer-boundary"),
  ]);
  return { stores, settings, keys, boundary };
}

// Markup.

function isSet(value) {
  return value ? badge("set", "good") : badge("not set", "warn");
}

// How the verifier takes StoreKit Testing data (`Xcode`, `LocalTesting`), which Apple does not sign.
function localTesting(apple) {
  if (apple.accept_local_testing) return h("span", {}, badge("unverified", "warn"), " accepted as Apple's library does (accept_local_testing)");
  if (apple.storekit_test_certificate) return "verified with the StoreKit test certificate";
  return "refused";
}

function storesSection(stores) {
  const apple = stores.apple;
  const google = stores.google;
  return h(
    "div",
    { class: "cards" },
    h(
      "section",
      { class: "card", "aria-labelledby": "store-apple" },
      h("h3", { id: "store-apple", text: "App Store" }),
      apple
        ? facts([
            ["Bundle id", h("code", { text: apple.bundle_id })],
            ["App Apple ID", apple.app_apple_id ? String(apple.app_apple_id) : "—"],
            ["Environments", apple.environments.map(words).join(", ")],
            ["Shared secret (receipts)", isSet(apple.shared_secret_set)],
            ["App Store Server API key", apple.api_key ? h("span", {}, isSet(true), ` key ${apple.api_key.key_id}`) : isSet(false)],
            ["Variants", Object.keys(apple.variant_bundle_ids || {}).join(", ") || "—"],
            ["Xcode and LocalTesting data", localTesting(apple)],
          ])
        : h("p", {}, isSet(false), " No App Store credentials: App Store purchases are refused."),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "store-google" },
      h("h3", { id: "store-google", text: "Google Play" }),
      google
        ? facts([
            ["Package", h("code", { text: google.package_name })],
            ["Service account", google.service_account_email],
            ["Push token (notifications)", isSet(google.push_token_set)],
            ["Consume consumables", google.consume_consumables ? "yes" : "no"],
            ["Environments", google.environments.map(words).join(", ")],
          ])
        : h("p", {}, isSet(false), " No Google Play credentials: Google Play purchases are refused."),
    ),
  );
}

function entitlementSettingsForm(settings, { navigate }) {
  const policy = select(transferPolicies, settings.transfer_policy, { name: "transfer_policy" });
  const limit = h("input", { type: "number", name: "device_limit", min: "1", max: "10000", step: "1", value: String(settings.device_limit) });
  const sandbox = h("input", { type: "checkbox", name: "accept_sandbox", id: "accept-sandbox", checked: settings.accept_sandbox });
  const errorBox = h("p", { class: "error", role: "alert" });
  return h(
    "form",
    {
      class: "settings-form",
      "aria-label": "Entitlement settings",
      onsubmit: async (event) => {
        event.preventDefault();
        errorBox.textContent = "";
        try {
          await put("/v1/admin/entitlements/settings", {
            transfer_policy: policy.value,
            device_limit: Number(limit.value),
            accept_sandbox: sandbox.checked,
          });
          navigate("/settings", {}, "The entitlement settings are saved.");
        } catch (error) {
          errorBox.textContent = `The settings were not saved: ${error.message}`;
        }
      },
    },
    field("When another customer presents an owned purchase", policy),
    field("Devices per purchase", limit, "A purchase presented by more devices is refused (403 device_limit_reached) until its devices are cleared."),
    h("div", { class: "field checkbox" }, sandbox, h("label", { for: "accept-sandbox", text: "Grant sandbox purchases (never counted as revenue)" })),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Save settings" })),
    errorBox,
  );
}

function createKeyForm({ navigate, notify }) {
  const kind = select(
    [
      ["secret", "Secret key (servers, tools, this console)"],
      ["public", "Public key (the app)"],
    ],
    "secret",
    { name: "kind" },
  );
  const label = h("input", { type: "text", name: "label", maxlength: "100", autocomplete: "off" });
  const submit = async (event) => {
    event.preventDefault();
    try {
      const created = await post("/v1/admin/keys", { kind: kind.value, label: label.value.trim() || null });
      await showOnce({
        title: `New ${created.kind} key`,
        message: h(
          "div",
          {},
          h("p", { text: "Copy the key now: it is not shown again (only its prefix is kept)." }),
          h("p", {}, h("code", { class: "secret", text: created.key })),
        ),
      });
      navigate("/settings", {}, `Created ${created.kind} key ${created.key_id}.`);
    } catch (error) {
      notify(`The key was not created: ${error.message}`, true);
    }
  };
  return h(
    "form",
    { class: "key-form", "aria-label": "Create a key", onsubmit: submit },
    field("Kind", kind),
    field("Label (optional)", label),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button", text: "Create key" })),
  );
}

function revokeKeyButton(key, { navigate, notify }) {
  return confirmButton(
    { class: "button small danger", text: "Revoke", "aria-label": `Revoke key ${key.key_id}` },
    {
      title: `Revoke ${key.kind} key ${key.key_id}?`,
      message:
        key.kind === "public"
          ? "Apps that ship this key can no longer call Shopkeeper."
          : "Tools using this key stop working, and console sessions opened with it end at once (this one too, if it was).",
      confirmLabel: "Revoke key",
      danger: true,
    },
    async () => {
      try {
        await del(`/v1/admin/keys/${encodeURIComponent(key.key_id)}`);
        navigate("/settings", {}, `Revoked key ${key.key_id}.`);
      } catch (error) {
        notify(`The key was not revoked: ${error.message}`, true);
      }
    },
  );
}

function keysSection(keys, actions) {
  const create = createKeyForm(actions);
  return [
    table(
      ["Key", "Kind", "Prefix", "Label", "Created", "Revoked", ""],
      keys.map((key) => [
        h("code", { text: key.key_id }),
        key.kind,
        h("code", { text: `${key.prefix}…` }),
        key.label || "—",
        dateTime(key.created_at),
        key.revoked_at ? dateTime(key.revoked_at) : "—",
        key.revoked_at ? "" : revokeKeyButton(key, actions),
      ]),
      { caption: "API keys" },
    ),
    create,
  ];
}

export async function render(section, { navigate, notify, session }) {
  const { stores, settings, keys, boundary } = await load();
  replace(
    section,
    pageHeading("Settings"),
    facts([
      ["App", `${session.app_name} (${session.app_id})`],
      ["Customer boundary", `${boundary.mode}${boundary.mode === "signed" ? " (public-key calls need a customer token)" : " (public-key calls name any customer)"}`],
    ]),
  );
  append(
    section,
    h("h2", { text: "Store credentials" }),
    h("p", { class: "muted", text: "Whether each credential is set; secrets are never shown. Set them with shopkeeper or PUT /v1/admin/stores/{store}." }),
    storesSection(stores),
    h("h2", { text: "Entitlements" }),
    entitlementSettingsForm(settings, { navigate }),
    h("h2", { text: "API keys" }),
    keysSection(keys.keys, { navigate, notify }),
  );
}
