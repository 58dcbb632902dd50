// Offerings (#/offerings): what the app offers, each offering with its packages, whether it is the default and the
// locales of its paywall (GET /v1/admin/offerings, the offerings document), each linking to its editor; then the
// targeting rules in the order they are tried (offering-rules.js). Developers and admins get the controls that
// change them; viewers read.

import { get, segment } from "../api.js";
import { h, append, badge, link, pageHeading, replace, table } from "../dom.js";
import { packagesText } from "../pure/offerings.js";
import { mayChangeOfferings } from "../pure/roles.js";
import { rulesEditor } from "./offering-rules.js";

// Data.

async function load() {
  return get("/v1/admin/offerings");
}

// Markup.

function offeringRow(offering, editable) {
  const locales = Object.keys((offering.paywall && offering.paywall.localizations) || {});
  return h(
    "tr",
    { dataset: { offering: offering.offering_id } },
    h("th", { scope: "row" }, h("code", { text: offering.offering_id }), offering.default ? [" ", badge("default", "good")] : null),
    h("td", { text: offering.description || "" }),
    h("td", { class: "packages", text: packagesText(offering) }),
    h("td", { class: "paywall-locales", text: offering.paywall ? `${offering.paywall.layout}: ${locales.join(", ")}` : "none" }),
    h("td", {}, link(`/offerings/${segment(offering.offering_id)}`, editable ? "Edit" : "View", { "aria-label": `${editable ? "Edit" : "View"} ${offering.offering_id}` })),
  );
}

export async function render(section, { session, navigate }) {
  const offeringsDocument = await load();
  const editable = mayChangeOfferings(session);
  const offerings = offeringsDocument.offerings || [];
  replace(
    section,
    pageHeading("Offerings"),
    h("p", {
      class: "lede",
      text: "What the app offers: each offering sells catalog products in packages, with a paywall the app draws. Targeting rules pick the offering per request; experiments compare offerings.",
    }),
    h(
      "p",
      { class: "actions" },
      editable ? link("/offerings/new", "New offering", { class: "button primary", id: "new-offering" }) : null,
      link("/experiments", "Experiments", { class: "button" }),
    ),
  );
  append(
    section,
    table(["Offering", "Description", "Packages", "Paywall", ""], offerings.map((offering) => offeringRow(offering, editable)), {
      caption: `${offerings.length} offering(s)`,
      className: "offerings",
    }),
    h("h2", { text: "Targeting rules" }),
    rulesEditor({ rules: offeringsDocument.rules || [], offeringIDs: offerings.map((offering) => offering.offering_id), editable, navigate }),
  );
}
