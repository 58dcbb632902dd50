// One experiment and its results (#/experiments/<id>): its state, audience and variants; for developers and admins
// the button that starts a draft or stops a running experiment (for good), each after a confirmation; then the
// results (GET /v1/admin/reports/experiments/{id}): per variant the customers exposed, trials, purchases, paying
// customers, refunds, conversion with its 95% credible interval and the chance it is best (charted), revenue per
// customer by currency with its interval, the method in the report's words, and the same figures as CSV.

import { ApiError, get, post, segment } from "../api.js";
import { confirmButton } from "../dialog.js";
import { h, append, badge, facts, link, pageHeading, replace, table } from "../dom.js";
import { intervalChart } from "../interval-chart.js";
import {
  allowedActions,
  audienceText,
  currencies,
  leaderText,
  percent,
  rateInterval,
  revenueIn,
  revenueText,
  shares,
  stateBadge,
  units,
} from "../pure/experiments.js";
import { count, dateTime } from "../pure/format.js";
import { withQuery } from "../pure/query.js";
import { mayChangeOfferings } from "../pure/roles.js";

// Data.

/** The report (which holds the experiment), or `{ missing }` for a 404. */
async function load(id) {
  try {
    return await get(`/v1/admin/reports/experiments/${segment(id)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { missing: error };
    throw error;
  }
}

// Markup.

function actionButton(experiment, { navigate, notify }) {
  const allowed = allowedActions(experiment);
  const id = experiment.experiment_id;
  const act = (verb) => async (button) => {
    button.disabled = true;
    try {
      await post(`/v1/admin/experiments/${segment(id)}/${verb}`);
      navigate(`/experiments/${segment(id)}`, {}, verb === "start" ? `Started ${id}.` : `Stopped ${id}.`);
    } catch (error) {
      button.disabled = false;
      notify(`The experiment was not ${verb === "start" ? "started" : "stopped"}: ${error.message}`, true);
    }
  };
  if (allowed.start) {
    const question = {
      title: `Start ${id}?`,
      message: "From now its audience is shown its variants, each customer one of them for good; its variants and weights can no longer change.",
      confirmLabel: "Start experiment",
    };
    return confirmButton({ class: "button primary", id: "start-experiment", text: "Start experiment" }, question, act("start"));
  }
  if (allowed.stop) {
    const question = {
      title: `Stop ${id}?`,
      message: "Its customers get what targeting gives them again. A stopped experiment is never started again; its results stay.",
      confirmLabel: "Stop experiment",
      danger: true,
    };
    return confirmButton({ class: "button danger", id: "stop-experiment", text: "Stop experiment" }, question, act("stop"));
  }
  return null;
}

function summary(experiment) {
  const state = stateBadge(experiment);
  return facts([
    ["State", h("span", { id: "experiment-state" }, badge(state.text, state.tone))],
    ["Name", experiment.name],
    ["Audience", audienceText(experiment)],
    ["Started", dateTime(experiment.started_at)],
    ["Stopped", dateTime(experiment.stopped_at)],
  ]);
}

function variantsTable(report) {
  const split = shares(report.variants);
  return table(
    ["Variant", "Offering", "Share", "Exposed", "Trials started", "Trials converted", "Purchases", "Paying customers", "Refunds", "Conversion (95% interval)", "Chance to be best"],
    report.variants.map((variant, index) =>
      h(
        "tr",
        { dataset: { variant: variant.key } },
        h("th", { scope: "row" }, h("code", { text: variant.key })),
        h("td", {}, link(`/offerings/${segment(variant.offering_id)}`, variant.offering_id)),
        h("td", { class: "number", text: percent(split[index], 0) }),
        h("td", { class: "number exposed", text: count(variant.customers_exposed) }),
        h("td", { class: "number", text: count(variant.trials_started) }),
        h("td", { class: "number", text: count(variant.trials_converted) }),
        h("td", { class: "number purchases", text: count(variant.purchases) }),
        h("td", { class: "number paying", text: count(variant.paying_customers) }),
        h("td", { class: "number", text: count(variant.refunds) }),
        h("td", { class: "number conversion", text: `${percent(variant.conversion.rate)} (${rateInterval(variant.conversion)})` }),
        h("td", { class: "number best", text: percent(variant.chance_to_be_best, 0) }),
      ),
    ),
    { caption: "Per variant, counting only what happened at or after each customer's first exposure.", className: "experiment-results" },
  );
}

function revenueTable(report) {
  const list = currencies(report);
  if (list.length === 0) return h("p", { class: "muted", id: "no-revenue", text: "No revenue from exposed customers yet." });
  const rows = list.flatMap((currency) =>
    report.variants.map((variant) => {
      const entry = revenueIn(variant, currency);
      return h(
        "tr",
        { dataset: { variant: variant.key, currency } },
        h("th", { scope: "row" }, h("code", { text: variant.key })),
        h("td", { text: currency }),
        h("td", { class: "number", text: units(entry.total, currency) }),
        h("td", { class: "number", text: revenueText(entry) }),
        h("td", { class: "number", text: entry.chance_to_be_best === undefined ? "—" : percent(entry.chance_to_be_best, 0) }),
      );
    }),
  );
  return table(["Variant", "Currency", "Revenue", "Per exposed customer (95% interval)", "Chance to be best"], rows, { caption: "Revenue by currency, net of refunds.", className: "experiment-revenue" });
}

export async function render(section, { params, session, navigate, notify }) {
  const id = params[0];
  const report = await load(id);
  if (report.missing) {
    replace(section, pageHeading(`Experiment ${id}`), h("p", { class: "error", role: "alert", text: report.missing.message }), link("/experiments", "Back to the experiments"));
    return;
  }
  const experiment = report.experiment;
  const csv = withQuery(`/v1/admin/reports/experiments/${segment(id)}`, { format: "csv" });
  replace(
    section,
    pageHeading(`Experiment ${id}`),
    summary(experiment),
    h(
      "p",
      { class: "actions" },
      mayChangeOfferings(session) ? actionButton(experiment, { navigate, notify }) : null,
      h("a", { class: "button", id: "experiment-csv", href: csv, download: "", text: "Download results (CSV)" }),
      link("/experiments", "All experiments", { class: "button" }),
    ),
  );
  append(
    section,
    h("h2", { text: "Results" }),
    h("p", { class: "lede", id: "experiment-leader", text: leaderText(report) }),
    intervalChart({ title: "Conversion per variant (paying customers over customers exposed), with 95% intervals", variants: report.variants }),
    variantsTable(report),
    h("h3", { text: "Revenue per customer" }),
    revenueTable(report),
    h("p", { class: "muted method", text: report.method }),
  );
}
