// The targeting rules on the offerings page: tried in order, the first whose conditions all hold picks the offering.
// A developer moves rules up and down, removes them and adds new ones here, in the page only; nothing is written
// until the rules are checked (PUT /v1/admin/offering-rules?dry_run=true, whose answer says what would change) and
// then saved after a confirmation, as the catalog's import does. Viewers see the rules and their conditions.

import { put } from "../api.js";
import { confirmAction } from "../dialog.js";
import { h, field, replace, select, table } from "../dom.js";
import { words } from "../pure/format.js";
import { conditionsText, moveRule, platforms, ruleFromForm, rulesChangeSummary } from "../pure/offerings.js";

function ruleRow(rule, index, state) {
  const controls = state.editable
    ? h(
        "td",
        { class: "rule-controls" },
        h("button", { type: "button", class: "button small", text: "Up", "aria-label": `Move ${rule.rule_id} up`, disabled: index === 0, onclick: () => state.change(moveRule(state.rules, index, -1)) }),
        h("button", { type: "button", class: "button small", text: "Down", "aria-label": `Move ${rule.rule_id} down`, disabled: index === state.rules.length - 1, onclick: () => state.change(moveRule(state.rules, index, 1)) }),
        h("button", { type: "button", class: "button small danger", text: "Remove", "aria-label": `Remove ${rule.rule_id}`, onclick: () => state.change(state.rules.filter((_, at) => at !== index)) }),
      )
    : null;
  return h(
    "tr",
    { dataset: { rule: rule.rule_id } },
    h("td", { class: "number", text: String(index + 1) }),
    h("th", { scope: "row" }, h("code", { text: rule.rule_id })),
    h("td", { class: "rule-conditions", text: conditionsText(rule) }),
    h("td", {}, h("code", { text: rule.offering_id })),
    controls,
  );
}

function ruleForm(offeringIDs, state) {
  const inputs = {
    rule_id: h("input", { type: "text", name: "rule_id", autocomplete: "off", required: true }),
    offering_id: select(offeringIDs, offeringIDs[0], { name: "rule_offering" }),
    countries: h("input", { type: "text", name: "countries", placeholder: "DE, AT", autocomplete: "off" }),
    locales: h("input", { type: "text", name: "locales", placeholder: "de, fr-CA", autocomplete: "off" }),
    min_app_version: h("input", { type: "text", name: "min_app_version", placeholder: "2.0", autocomplete: "off" }),
    below_app_version: h("input", { type: "text", name: "below_app_version", autocomplete: "off" }),
    build: select([["", "any build"], "development", "distribution"], "", { name: "build" }),
    new_customer: select([["", "any"], ["true", "new customers only"], ["false", "returning customers only"]], "", { name: "new_customer" }),
    trial_used: select([["", "any"], ["true", "trial used"], ["false", "trial not used"]], "", { name: "trial_used" }),
    subscription_group: h("input", { type: "text", name: "subscription_group", autocomplete: "off" }),
    subscription_status: select([["", "any"], "active", "lapsed", "ever", "never"], "", { name: "subscription_status" }),
  };
  const boxes = platforms.map((platform) => h("input", { type: "checkbox", name: `platform-${platform}`, value: platform }));
  const read = () => ({
    ...Object.fromEntries(Object.entries(inputs).map(([key, input]) => [key, input.value])),
    platforms: boxes.filter((box) => box.checked).map((box) => box.value),
  });
  return h(
    "form",
    {
      class: "rule-form grant-form",
      "aria-label": "Add a targeting rule",
      onsubmit: (event) => {
        event.preventDefault();
        const rule = ruleFromForm(read());
        if (!rule.rule_id || state.rules.some((existing) => existing.rule_id === rule.rule_id)) {
          state.problem(`A rule needs an id no other rule has.`);
          return;
        }
        state.change([...state.rules, rule]);
        event.target.reset();
      },
    },
    field("Rule id", inputs.rule_id),
    field("Serves the offering", inputs.offering_id),
    h("fieldset", {}, h("legend", { text: "Platforms (none: every one)" }), boxes.map((box) => h("div", { class: "field checkbox" }, box, h("label", { for: (box.id = `rule-${box.value}`), text: words(box.value) })))),
    field("Countries", inputs.countries, "ISO 3166-1 alpha-2, comma separated."),
    field("Locales", inputs.locales, "de covers de-AT and de-CH."),
    field("From app version", inputs.min_app_version),
    field("Below app version", inputs.below_app_version),
    field("Build", inputs.build),
    field("New customer", inputs.new_customer),
    field("Trial", inputs.trial_used),
    field("Subscription group", inputs.subscription_group),
    field("Subscription status", inputs.subscription_status),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button", text: "Add rule" })),
  );
}

/** Checks the rules with a dry run, then saves them after a confirmation. */
async function checkAndSave(rules, { errorBox, navigate }) {
  errorBox.textContent = "";
  try {
    const dryRun = await put("/v1/admin/offering-rules", { rules }, { query: { dry_run: "true" } });
    const confirmed = await confirmAction({
      title: "Save the targeting rules?",
      message: `Checked (a dry run, nothing written yet): ${rulesChangeSummary(dryRun)}`,
      confirmLabel: "Save rules",
      danger: dryRun.deleted.length > 0,
    });
    if (!confirmed) return;
    const saved = await put("/v1/admin/offering-rules", { rules });
    navigate("/offerings", {}, `Rules saved: ${rulesChangeSummary(saved)}`);
  } catch (error) {
    errorBox.textContent = `The rules were not saved: ${error.message}`;
    errorBox.focus();
  }
}

/** The rules' table (and, when `editable`, the controls reordering them, the form adding one and the save button). */
export function rulesEditor({ rules, offeringIDs, editable, navigate }) {
  const container = h("div", { class: "rules", id: "rules" });
  const errorBox = h("p", { class: "error", role: "alert", tabindex: "-1" });
  const state = { rules: [...rules], editable };
  const draw = () => {
    const changed = JSON.stringify(state.rules) !== JSON.stringify(rules);
    replace(
      container,
      errorBox,
      table(
        ["Order", "Rule", "When", "Offering", editable ? "" : null].filter((column) => column !== null),
        state.rules.map((rule, index) => ruleRow(rule, index, state)),
        { caption: `${state.rules.length} rule(s), tried in this order; when none matches, the default offering is served.`, className: "rules-table" },
      ),
      editable && changed ? h("p", { class: "notice", text: "The rules have changed on this page only: check and save them." }) : null,
      editable
        ? h("div", { class: "actions" }, h("button", { type: "button", class: "button primary", id: "save-rules", text: "Check and save rules", disabled: !changed, onclick: () => checkAndSave(state.rules, { errorBox, navigate }) }))
        : null,
      editable && offeringIDs.length ? [h("h3", { text: "Add a rule" }), ruleForm(offeringIDs, state)] : null,
    );
  };
  state.change = (next) => {
    state.rules = next;
    draw();
  };
  state.problem = (message) => {
    errorBox.textContent = message;
    errorBox.focus();
  };
  draw();
  return container;
}
