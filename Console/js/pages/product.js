// Editing one product (#/catalog/<product id>): review state, cleared for sale, minimum app version and what older
// versions see, sort order and each localization's texts. The product as the server returned it is sent back with
// the edits (PUT /v1/admin/products/{product_id}: a stored product is a valid product), so fields this form does
// not show keep their values (pure/catalog.js's editedProduct).

import { ApiError, get, put, segment } from "../api.js";
import { h, append, field, link, pageHeading, readOnly, replace, select } from "../dom.js";
import { editedProduct } from "../pure/catalog.js";
import { words } from "../pure/format.js";
import { mayCall } from "../pure/roles.js";

// Data.

/** The product, or `{ missing }` (the 404) when there is none. */
async function load(id) {
  try {
    return await get(`/v1/admin/products/${segment(id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { missing: error };
    throw error;
  }
}

const reviewStates = ["pending_developer_approval", "waiting_for_review", "in_review", "approved", "rejected", "removed"];

// Markup.

function localizationFields(locale, localization, onRemove) {
  const name = h("input", { type: "text", name: `name-${locale}`, value: localization.name || "", maxlength: "200" });
  const description = h("textarea", { name: `description-${locale}`, rows: "3", maxlength: "4000" });
  description.value = localization.description || "";
  const priceHint = h("input", { type: "text", name: `price-${locale}`, value: localization.price_hint || "", maxlength: "32" });
  const group = h(
    "fieldset",
    { class: "localization", dataset: { locale } },
    h("legend", { text: `Locale ${locale}` }),
    field("Name", name),
    field("Description", description),
    field("Price hint", priceHint, "Shown until the store's own price has loaded, such as $0.99."),
    onRemove
      ? h("button", { type: "button", class: "button small", text: `Remove ${locale}`, onclick: () => onRemove(group) })
      : null,
  );
  group.read = () => ({ locale, name: name.value.trim(), description: description.value.trim(), price_hint: priceHint.value.trim() });
  return group;
}

/** The sale's fields, each read back by `read()`. */
function saleFields(product) {
  const reviewState = select(reviewStates.map((state) => [state, words(state)]), product.review_state, { name: "review_state" });
  const cleared = h("input", { type: "checkbox", name: "cleared_for_sale", checked: product.cleared_for_sale !== false });
  const minVersion = h("input", { type: "text", name: "min_app_version", value: product.min_app_version || "", inputmode: "decimal", autocomplete: "off" });
  const belowMin = select(
    [
      ["hide", "hide the product"],
      ["requires_update", "show it as needing an update"],
    ],
    product.below_min_version || "hide",
    { name: "below_min_version" },
  );
  const grandfathered = h("input", { type: "text", name: "grandfathered_below_version", value: product.grandfathered_below_version || "", autocomplete: "off" });
  const sortOrder = h("input", { type: "number", name: "sort_order", value: String(product.sort_order ?? 0), step: "1" });
  const fieldset = h(
    "fieldset",
    {},
    h("legend", { text: "Sale" }),
    field("Review state", reviewState),
    h("div", { class: "field checkbox" }, cleared, h("label", { for: (cleared.id = "cleared-for-sale"), text: "Cleared for sale" })),
    field("Minimum app version", minVersion, "Builds below it do not get the product as purchasable; empty: every version."),
    field("Below the minimum version", belowMin),
    field("Grandfathered below version", grandfathered, "Customers whose first version of the app is older own it without buying; empty: nobody."),
    field("Sort order", sortOrder),
  );
  const read = () => ({
    review_state: reviewState.value,
    cleared_for_sale: cleared.checked,
    below_min_version: belowMin.value,
    sort_order: sortOrder.value,
    min_app_version: minVersion.value,
    grandfathered_below_version: grandfathered.value,
  });
  return { fieldset, read };
}

/** The localizations' fieldsets (the default locale's cannot be removed) and the field adding a locale. */
function localizationEditor(product) {
  const locales = h("div", { class: "localizations" });
  const groups = [];
  const removeGroup = (group) => {
    groups.splice(groups.indexOf(group), 1);
    group.remove();
  };
  const addGroup = (locale, localization, onRemove) => {
    const group = localizationFields(locale, localization, onRemove);
    groups.push(group);
    locales.append(group);
    return group;
  };
  for (const [locale, localization] of Object.entries(product.localizations || {})) {
    addGroup(locale, localization, locale === product.default_locale ? null : removeGroup);
  }
  const newLocale = h("input", { type: "text", name: "new_locale", autocomplete: "off", placeholder: "fr-FR" });
  const addLocale = h("button", {
    type: "button",
    class: "button small",
    text: "Add locale",
    onclick: () => {
      const locale = newLocale.value.trim();
      if (!locale || groups.some((group) => group.dataset.locale === locale)) return;
      const group = addGroup(locale, {}, removeGroup);
      newLocale.value = "";
      group.querySelector("input").focus();
    },
  });
  const adder = h("div", { class: "field inline" }, h("label", { for: (newLocale.id = "new-locale"), text: "New locale" }), newLocale, addLocale);
  return { locales, adder, read: () => groups.map((group) => group.read()) };
}

function productForm(id, product, navigate) {
  const sale = saleFields(product);
  const localizations = localizationEditor(product);
  const errorBox = h("div", { class: "error", role: "alert" });
  const save = h("button", { type: "submit", class: "button primary", text: "Save product" });
  const submit = async (event) => {
    event.preventDefault();
    errorBox.textContent = "";
    const edited = editedProduct(product, { ...sale.read(), localizations: localizations.read() });
    save.disabled = true;
    try {
      await put(`/v1/admin/products/${segment(id)}`, edited);
      navigate("/catalog", {}, `Saved ${id}.`);
    } catch (error) {
      errorBox.textContent = `The product was not saved: ${error.message}`;
      errorBox.focus();
    } finally {
      save.disabled = false;
    }
  };
  errorBox.tabIndex = -1;
  return h(
    "form",
    { class: "product-form", "aria-label": `Edit ${id}`, onsubmit: submit },
    errorBox,
    sale.fieldset,
    h("h2", { text: "Localizations" }),
    localizations.locales,
    localizations.adder,
    h("div", { class: "actions" }, save, link("/catalog", "Cancel", { class: "button" })),
  );
}

export async function render(section, { params, navigate, session }) {
  const id = params[0];
  const product = await load(id);
  if (product.missing) {
    replace(section, pageHeading(`Product ${id}`), h("p", { class: "error", role: "alert", text: product.missing.message }), link("/catalog", "Back to the catalog"));
    return;
  }
  const form = productForm(id, product, navigate);
  const canEdit = mayCall(session && session.role, "PUT", `/v1/admin/products/${segment(id)}`);
  if (!canEdit) readOnly(form);
  replace(
    section,
    pageHeading(canEdit ? `Edit ${id}` : `Product ${id}`),
    canEdit ? null : h("p", { class: "notice", text: "Your role can read the catalog; changing it is a developer's." }),
    h("p", { class: "lede", text: `${words(product.type)}; entitlements: ${(product.entitlements || []).join(", ") || "none"}.` }),
  );
  append(section, form);
}
