// A paywall drawn as an app might draw it, for the offering editor's live preview: the texts the app gets for one
// locale (pure/offerings.js's paywallView, the catalog's fallback), the colours, the packages' products, the layout's
// name. Images are named, not loaded: the console's content security policy keeps it to its own origin, and the app
// loads them itself. Colours are set through the CSSOM (custom properties), which the policy allows, and only when
// they are #RRGGBB(AA).

import { h } from "./dom.js";
import { isColor } from "./pure/offerings.js";

function applyColors(element, colors) {
  for (const [name, value] of Object.entries(colors || {})) {
    if (isColor(value) && /^[A-Za-z0-9_-]{1,40}$/.test(name)) element.style.setProperty(`--paywall-${name}`, value);
  }
}

/** The preview of `view` (a `PaywallView`, or `null`) selling `packages` (`[{ package_id, product_id }]`). */
export function paywallPreview(view, packages, requestedLocale) {
  if (!view) {
    return h("div", { class: "paywall-preview empty", id: "paywall-preview" }, h("p", { text: "No paywall to preview: the document has no texts for this locale nor its default one." }));
  }
  const preview = h(
    "div",
    { class: `paywall-preview layout-${view.layout}`, id: "paywall-preview", dataset: { locale: view.locale, layout: view.layout } },
    h("p", { class: "paywall-meta muted", text: `Asked for ${requestedLocale || "(no locale)"}: texts in ${view.locale}; layout ${view.layout}.` }),
    Object.entries(view.image_urls).map(([name, url]) => h("div", { class: "paywall-image", title: url }, `Image ${name}: `, h("code", { text: url }))),
    h("h3", { class: "paywall-title", text: view.title }),
    view.subtitle ? h("p", { class: "paywall-subtitle", text: view.subtitle }) : null,
    view.features.length ? h("ul", { class: "paywall-features" }, view.features.map((feature) => h("li", { text: feature }))) : null,
    h(
      "ul",
      { class: "paywall-packages" },
      packages.map((item) => h("li", { dataset: { package: item.package_id } }, h("strong", { text: item.package_id }), ` ${item.product_id}`)),
    ),
    view.call_to_action ? h("p", {}, h("span", { class: "paywall-cta", text: view.call_to_action })) : null,
  );
  applyColors(preview, view.colors);
  return preview;
}
