// Editing one product (#/catalog/<product id>): review state, cleared for sale, minimum app version and what older
// versions see, sort order and each localization's texts. The product as the server returned it is sent back with
// the edits (PUT /v1/admin/products/{product_id}: a stored product is a valid product), so fields this form does
// not show keep their values.

import { ApiError, get, put, segment } from "../api.js";
import { h, append, field, link, pageHeading, replace, select } from "../dom.js";
import { words } from "../pure/format.js";

const reviewStates = ["pending_developer_approval", "waiting_for_review", "in_review", "approved", "rejected", "removed"];

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

export async function render(section, { params, navigate, notify }) {
  const id = params[0];
  let product;
  try {
    product = await get(`/v1/admin/products/${segment(id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      replace(section, pageHeading(`Product ${id}`), h("p", { class: "error", role: "alert", text: error.message }), link("/catalog", "Back to the catalog"));
      return;
    }
    throw error;
  }
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
  const errorBox = h("div", { class: "error", role: "alert" });
  const locales = h("div", { class: "localizations" });
  const groups = [];
  const removeGroup = (group) => {
    groups.splice(groups.indexOf(group), 1);
    group.remove();
  };
  for (const [locale, localization] of Object.entries(product.localizations || {})) {
    const group = localizationFields(locale, localization, locale === product.default_locale ? null : removeGroup);
    groups.push(group);
    locales.append(group);
  }
  const newLocale = h("input", { type: "text", name: "new_locale", autocomplete: "off", placeholder: "fr-FR" });
  const addLocale = h("button", {
    type: "button",
    class: "button small",
    text: "Add locale",
    onclick: () => {
      const locale = newLocale.value.trim();
      if (!locale || groups.some((group) => group.dataset.locale === locale)) return;
      const group = localizationFields(locale, {}, removeGroup);
      groups.push(group);
      locales.append(group);
      newLocale.value = "";
      group.querySelector("input").focus();
    },
  });
  const save = h("button", { type: "submit", class: "button primary", text: "Save product" });
  const form = h(
    "form",
    {
      class: "product-form",
      "aria-label": `Edit ${id}`,
      onsubmit: async (event) => {
        event.preventDefault();
        errorBox.textContent = "";
        const edited = structuredClone(product);
        edited.review_state = reviewState.value;
        edited.cleared_for_sale = cleared.checked;
        edited.below_min_version = belowMin.value;
        edited.sort_order = Number(sortOrder.value || 0);
        for (const [key, input] of [
          ["min_app_version", minVersion],
          ["grandfathered_below_version", grandfathered],
        ]) {
          if (input.value.trim()) edited[key] = input.value.trim();
          else delete edited[key];
        }
        edited.localizations = {};
        for (const group of groups) {
          const text = group.read();
          const previous = (product.localizations || {})[text.locale] || {};
          const localization = { ...previous, name: text.name };
          for (const key of ["description", "price_hint"]) {
            if (text[key]) localization[key] = text[key];
            else delete localization[key];
          }
          edited.localizations[text.locale] = localization;
        }
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
      },
    },
    errorBox,
    h(
      "fieldset",
      {},
      h("legend", { text: "Sale" }),
      field("Review state", reviewState),
      h("div", { class: "field checkbox" }, cleared, h("label", { for: (cleared.id = "cleared-for-sale"), text: "Cleared for sale" })),
      field("Minimum app version", minVersion, "Builds below it do not get the product as purchasable; empty: every version."),
      field("Below the minimum version", belowMin),
      field("Grandfathered below version", grandfathered, "Customers whose first version of the app is older own it without buying; empty: nobody."),
      field("Sort order", sortOrder),
    ),
    h("h2", { text: "Localizations" }),
    locales,
    h("div", { class: "field inline" }, h("label", { for: (newLocale.id = "new-locale"), text: "New locale" }), newLocale, addLocale),
    h("div", { class: "actions" }, save, link("/catalog", "Cancel", { class: "button" })),
  );
  errorBox.tabIndex = -1;
  replace(
    section,
    pageHeading(`Edit ${id}`),
    h("p", { class: "lede", text: `${words(product.type)}; entitlements: ${(product.entitlements || []).join(", ") || "none"}.` }),
  );
  append(section, form);
}
