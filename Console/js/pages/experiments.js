// Experiments (#/experiments): every experiment of the app, newest first, with its state and variants, each linking
// to its results page (experiment.js, where it is started and stopped); and, for developers and admins, the form
// creating a draft: 2 to 4 variants, each an offering with a weight, over an audience (a targeting rule, or every
// request). The form is checked as the server checks it (pure/experiments.js's draftExperiment) before it is sent
// (POST /v1/admin/experiments); a draft serves nothing until it is started.

import { get, post, segment } from "../api.js";
import { h, append, badge, field, link, pageHeading, replace, select, table } from "../dom.js";
import { audienceText, draftExperiment, percent, shares, stateBadge, variantsText } from "../pure/experiments.js";
import { dateTime } from "../pure/format.js";
import { conditionsText } from "../pure/offerings.js";
import { mayChangeOfferings } from "../pure/roles.js";

// Data.

async function load() {
  const [listed, offerings] = await Promise.all([get("/v1/admin/experiments"), get("/v1/admin/offerings")]);
  return { experiments: listed.experiments, offerings: offerings.offerings || [], rules: offerings.rules || [] };
}

// Markup.

function experimentRow(experiment) {
  const state = stateBadge(experiment);
  return h(
    "tr",
    { dataset: { experiment: experiment.experiment_id, state: experiment.state || "draft" } },
    h("th", { scope: "row" }, link(`/experiments/${segment(experiment.experiment_id)}`, experiment.experiment_id)),
    h("td", { text: experiment.name }),
    h("td", { class: "state" }, badge(state.text, state.tone)),
    h("td", { text: variantsText(experiment) }),
    h("td", { text: audienceText(experiment) }),
    h("td", { text: dateTime(experiment.started_at) }),
    h("td", { text: dateTime(experiment.stopped_at) }),
  );
}

function variantRow(index, offeringIDs, onInput) {
  const key = h("input", { type: "text", name: `variant-key-${index}`, value: String.fromCharCode(97 + index), autocomplete: "off", "aria-label": `Variant ${index + 1} key` });
  const offering = select(offeringIDs, offeringIDs[index % Math.max(1, offeringIDs.length)], { name: `variant-offering-${index}`, "aria-label": `Variant ${index + 1} offering` });
  const weight = h("input", { type: "number", name: `variant-weight-${index}`, value: "1", min: "1", max: "10000", step: "1", "aria-label": `Variant ${index + 1} weight` });
  const share = h("span", { class: "share muted" });
  const row = h("li", { class: "variant-row", oninput: onInput, onchange: onInput }, key, offering, weight, share);
  row.read = () => ({ key: key.value, offering_id: offering.value, weight: weight.value });
  row.share = share;
  return row;
}

function variantsEditor(offeringIDs) {
  const list = h("ol", { class: "variants-editor", id: "variants" });
  const rows = [];
  const add = h("button", { type: "button", class: "button small", id: "add-variant", text: "Add variant", onclick: () => grow() });
  const remove = h("button", {
    type: "button",
    class: "button small",
    id: "remove-variant",
    text: "Remove the last variant",
    onclick: () => {
      rows.pop().remove();
      refresh();
    },
  });
  function refresh() {
    const figures = shares(rows.map((row) => row.read()));
    rows.forEach((row, index) => {
      row.share.textContent = `${percent(figures[index], 0)} of the audience`;
    });
    add.disabled = rows.length >= 4;
    remove.disabled = rows.length <= 2;
  }
  function grow() {
    if (rows.length >= 4) return;
    const row = variantRow(rows.length, offeringIDs, refresh);
    rows.push(row);
    list.append(row);
    refresh();
  }
  grow();
  grow();
  return { list, controls: h("div", { class: "actions" }, add, remove), read: () => rows.map((row) => row.read()) };
}

function createForm({ offerings, rules, navigate }) {
  const offeringIDs = offerings.map((offering) => offering.offering_id);
  const id = h("input", { type: "text", name: "experiment_id", autocomplete: "off", required: true });
  const name = h("input", { type: "text", name: "experiment_name", autocomplete: "off", maxlength: "200", required: true });
  const audience = select([["", "every request"], ...rules.map((rule) => [rule.rule_id, `rule ${rule.rule_id}: ${conditionsText(rule)}`])], "", { name: "audience" });
  const variants = variantsEditor(offeringIDs);
  const errorBox = h("div", { class: "error", role: "alert", tabindex: "-1" });
  const submit = async (event) => {
    event.preventDefault();
    errorBox.textContent = "";
    const { experiment, problems } = draftExperiment({ experiment_id: id.value, name: name.value, rule_id: audience.value, variants: variants.read() });
    if (problems.length) {
      replace(errorBox, h("p", { text: "The experiment was not created:" }), h("ul", {}, problems.map((problem) => h("li", { text: problem }))));
      errorBox.focus();
      return;
    }
    try {
      const created = await post("/v1/admin/experiments", experiment);
      navigate(`/experiments/${segment(created.experiment_id)}`, {}, `Created the draft ${created.experiment_id}: start it when ready.`);
    } catch (error) {
      errorBox.textContent = `The experiment was not created: ${error.message}`;
      errorBox.focus();
    }
  };
  return h(
    "form",
    { class: "experiment-form panel", "aria-label": "New experiment", onsubmit: submit },
    errorBox,
    field("Experiment id", id, "Never reused: a stopped experiment keeps its id and results."),
    field("Name", name),
    field("Audience", audience, "Who takes part: the requests a targeting rule matches, or every request."),
    h("fieldset", {}, h("legend", { text: "Variants (2 to 4): key, offering, weight" }), variants.list, variants.controls),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Create draft" })),
  );
}

export async function render(section, { session, navigate }) {
  const { experiments, offerings, rules } = await load();
  const editable = mayChangeOfferings(session);
  replace(
    section,
    pageHeading("Experiments"),
    h("p", { class: "lede", text: "Each experiment shows its audience one of 2 to 4 offerings, the same one for every device of a customer, and counts what each variant sells from the customer's first exposure on." }),
  );
  append(
    section,
    table(["Experiment", "Name", "State", "Variants", "Audience", "Started", "Stopped"], experiments.map(experimentRow), { caption: `${experiments.length} experiment(s), newest first`, className: "experiments" }),
  );
  if (editable && offerings.length >= 2) append(section, h("h2", { text: "New experiment" }), createForm({ offerings, rules, navigate }));
  else if (editable) append(section, h("p", { class: "notice", text: "An experiment compares offerings: create at least two first." }));
}
