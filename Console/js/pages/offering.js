// One offering (#/offerings/<id>, or #/offerings/new): its description, whether it is the default, its packages
// (offering-packages.js) and its paywall document as JSON, with a live preview of the paywall as the app gets it for a
// chosen locale (the catalog's fallback: exact tag, bare language, another region, the default locale). Saving is
// checked first, as the catalog's import is: "Check" sends the offering with dry_run=true (nothing is written) and
// only then does "Save offering" send it (PUT /v1/admin/offerings/{offering_id}); any edit asks for a new check.
// Viewers see the same page without the controls that change it.

import { ApiError, get, put, segment } from "../api.js";
import { h, append, field, link, pageHeading, replace } from "../dom.js";
import { paywallPreview } from "../paywall-preview.js";
import { editedOffering, parsePaywall, paywallView, previewLocales } from "../pure/offerings.js";
import { mayChangeOfferings } from "../pure/roles.js";
import { packagesEditor } from "./offering-packages.js";

/** A new offering's paywall, to start from. */
const paywallTemplate = {
  layout: "hero",
  colors: { accent: "#2E7D32", background: "#F1F8E9" },
  image_urls: {},
  default_locale: "en",
  localizations: { en: { title: "Go further", subtitle: "Everything in the app", features: ["Every feature"], call_to_action: "Continue" } },
};

// Data.

/** The offering (`null` for a new one, `{ missing }` for a 404) and the catalog's product ids. */
async function load(id) {
  const products = get("/v1/admin/products").then((answer) => answer.products.map((product) => product.product_id));
  if (id === "new") return { offering: null, productIDs: await products };
  try {
    const [offering, productIDs] = await Promise.all([get(`/v1/admin/offerings/${segment(id)}`), products]);
    return { offering, productIDs };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { missing: error };
    throw error;
  }
}

// Markup.

function previewPanel(readPaywall, readPackages) {
  const locale = h("input", { type: "text", name: "preview_locale", id: "preview-locale", list: "preview-locales", value: "en-US", autocomplete: "off" });
  const choices = h("datalist", { id: "preview-locales" });
  const area = h("div", { class: "paywall-area", "aria-live": "polite" });
  const problem = h("p", { class: "error", id: "paywall-problem", role: "alert" });
  const update = () => {
    const parsed = readPaywall();
    problem.textContent = parsed.problem || "";
    replace(choices, previewLocales(parsed.paywall).map((tag) => h("option", { value: tag })));
    const packages = readPackages().filter((item) => item.package_id || item.product_id);
    replace(area, parsed.paywall ? paywallPreview(paywallView(parsed.paywall, locale.value.trim()), packages, locale.value.trim()) : h("p", { class: "muted", text: "No paywall: the app gets the packages alone." }));
  };
  locale.addEventListener("input", update);
  const panel = h(
    "section",
    { class: "panel paywall-panel", "aria-label": "Paywall preview" },
    h("h2", { text: "Preview" }),
    field("Locale of the preview", locale, "The app's locale: the texts shown are those the app gets for it."),
    choices,
    problem,
    area,
  );
  return { panel, update };
}

function offeringFields(offering) {
  const id = h("input", { type: "text", name: "offering_id", value: offering.offering_id || "", autocomplete: "off", readonly: Boolean(offering.offering_id), required: true });
  const description = h("textarea", { name: "description", rows: "2", maxlength: "1000" });
  description.value = offering.description || "";
  const isDefault = h("input", { type: "checkbox", name: "default", id: "offering-default", checked: Boolean(offering.default) });
  const paywall = h("textarea", { name: "paywall", rows: "16", spellcheck: "false", class: "code" });
  paywall.value = JSON.stringify(offering.paywall === undefined ? paywallTemplate : offering.paywall, null, 2);
  return { id, description, isDefault, paywall };
}

/** The check (dry run) and save buttons: `build()` answers the offering to send (it throws when the paywall is
 *  not a valid document); saving is offered once the same offering passed the check. */
function saveControls({ build, errorBox, navigate }) {
  const state = { checkedBody: null };
  const checked = h("p", { class: "status", id: "offering-checked", role: "status" });
  const save = h("button", { type: "button", class: "button primary", id: "save-offering", text: "Save offering", disabled: true });
  const check = h("button", { type: "submit", class: "button", id: "check-offering", text: "Check (dry run)" });
  const reset = () => {
    state.checkedBody = null;
    save.disabled = true;
    checked.textContent = "";
  };
  const attempt = async (dryRun) => {
    errorBox.textContent = "";
    try {
      const body = build();
      await put(`/v1/admin/offerings/${segment(body.offering_id)}`, body, dryRun ? { query: { dry_run: "true" } } : {});
      if (!dryRun) {
        navigate("/offerings", {}, `Saved ${body.offering_id}.`);
        return;
      }
      state.checkedBody = JSON.stringify(body);
      save.disabled = false;
      checked.textContent = "Checked: the server accepts this offering (nothing is written yet).";
    } catch (error) {
      errorBox.textContent = `${dryRun ? "The check failed" : "The offering was not saved"}: ${error.message}`;
      errorBox.focus();
    }
  };
  save.addEventListener("click", () => {
    let current = null;
    try {
      current = JSON.stringify(build());
    } catch {
      current = null;
    }
    if (current !== null && current === state.checkedBody) attempt(false);
    else reset();
  });
  return { check, save, checked, reset, onSubmit: (event) => { event.preventDefault(); attempt(true); } };
}

/** The form: fields, the live preview, the check (dry run) and, once checked, the save. */
function offeringForm({ offering, productIDs, editable, navigate }) {
  const inputs = offeringFields(offering);
  const errorBox = h("p", { class: "error", role: "alert", tabindex: "-1" });
  const hooks = { changed: () => {} };
  const packages = packagesEditor(offering.packages || [], productIDs, () => hooks.changed());
  const preview = previewPanel(() => parsePaywall(inputs.paywall.value), () => packages.read());
  const build = () => {
    const parsed = parsePaywall(inputs.paywall.value);
    if (parsed.problem) throw new Error(parsed.problem);
    return editedOffering(offering, { offering_id: inputs.id.value, description: inputs.description.value, default: inputs.isDefault.checked, packages: packages.read(), paywall: parsed.paywall });
  };
  const controls = saveControls({ build, errorBox, navigate });
  hooks.changed = () => {
    controls.reset();
    preview.update();
  };
  for (const input of Object.values(inputs)) input.addEventListener("input", hooks.changed);
  inputs.isDefault.addEventListener("change", hooks.changed);
  const fields = h(
    "fieldset",
    { class: "offering-fields", disabled: !editable },
    h("legend", { text: "Offering" }),
    field("Offering id", inputs.id),
    field("Description", inputs.description),
    h("div", { class: "field checkbox" }, inputs.isDefault, h("label", { for: "offering-default", text: "The app's default offering (served when no rule matches)" })),
    h("h2", { text: "Packages" }),
    packages.list,
    editable ? packages.add : null,
    field("Paywall document (JSON)", inputs.paywall, "layout, colors, image_urls, default_locale and localizations (title, subtitle, features, call_to_action per locale). Empty: no paywall."),
  );
  preview.update();
  return h(
    "form",
    { class: "offering-form", "aria-label": "Offering", onsubmit: controls.onSubmit },
    errorBox,
    h("div", { class: "offering-editor" }, fields, preview.panel),
    controls.checked,
    editable ? h("div", { class: "actions" }, controls.check, controls.save, link("/offerings", "Cancel", { class: "button" })) : link("/offerings", "Back to the offerings"),
  );
}

export async function render(section, { params, session, navigate }) {
  const id = params[0];
  const loaded = await load(id);
  if (loaded.missing) {
    replace(section, pageHeading(`Offering ${id}`), h("p", { class: "error", role: "alert", text: loaded.missing.message }), link("/offerings", "Back to the offerings"));
    return;
  }
  const offering = loaded.offering || {};
  const editable = mayChangeOfferings(session);
  replace(section, pageHeading(loaded.offering ? `${editable ? "Edit" : "Offering"} ${id}` : "New offering"));
  append(section, offeringForm({ offering, productIDs: loaded.productIDs, editable, navigate }));
}
