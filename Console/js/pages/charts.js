// Charts: the subscription charts of a range of UTC days in one reporting currency (or each currency as paid), from
// the reports API (GET /v1/admin/reports/<chart>; definitions in docs/charts.md). Every point and bar names its figure
// on hover; each chart has a CSV of exactly the series it draws. Which charts there are, what they ask and what they
// draw is pure/charts.js's; this module fetches and builds the page.

import { ApiError, get } from "../api.js";
import { barChart, lineChart } from "../chart.js";
import { h, append, field, pageHeading, replace, select } from "../dom.js";
import { daysBetween } from "../pure/format.js";
import {
  chartCsv,
  chartNamed,
  charts,
  csvFileName,
  currencyOptions,
  groupings,
  measures,
  readChartState,
  stateQuery,
} from "../pure/charts.js";
import { rangeForm } from "../range-form.js";

const route = "/charts";

// Data.

/** The chart's reports, by key. */
async function load(chart, state) {
  const requests = chart.requests(state);
  const answers = await Promise.all(requests.map(({ path, query }) => get(path, query)));
  return Object.fromEntries(requests.map(({ key }, index) => [key, answers[index]]));
}

/** The loaded exchange rates of the range (their currencies are the reporting currencies offered); none when they
 *  cannot be read. */
async function loadRates(state) {
  try {
    const answer = await get("/v1/admin/exchange-rates", { from: state.range.from, to: state.range.to, limit: 1000 });
    return answer.rates || [];
  } catch {
    return [];
  }
}

// Markup.

function optionsForm(chart, state, rates, navigate) {
  const chartPicker = select(
    charts.map((item) => [item.id, item.label]),
    chart.id,
    { name: "chart", id: "chart-kind" },
  );
  const currency = select(currencyOptions(rates, state.currency), state.currency, { name: "currency", id: "chart-currency" });
  const offered = groupings.filter(([value]) => value === "" || chart.groupings.includes(value));
  const group = chart.groupings.length ? select(offered, state.group, { name: "group", id: "chart-group" }) : null;
  const measure = chart.measures ? select(measures, state.measure, { name: "measure", id: "chart-measure" }) : null;
  return h(
    "form",
    {
      class: "range",
      id: "chart-options",
      "aria-label": "Chart",
      onsubmit: (event) => {
        event.preventDefault();
        navigate(route, {
          ...stateQuery(state),
          chart: chartPicker.value,
          currency: currency.value || undefined,
          group: group ? group.value || undefined : undefined,
          measure: measure && measure.value === "arr" ? "arr" : undefined,
        });
      },
    },
    field("Chart", chartPicker),
    field("Reporting currency", currency, "At the exchange rates the app loaded."),
    group ? field("Group by", group) : null,
    measure ? field("Revenue as", measure) : null,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Show" })),
  );
}

function tileView({ name, label, value, text }) {
  return h(
    "div",
    { class: "tile", dataset: { figure: name, value } },
    h("span", { class: "tile-label", text: label }),
    h("span", { class: "tile-value", text }),
  );
}

/** A chart and the link to its CSV, made from the same series. */
function chartView(drawn, days, currency, range) {
  const { id, kind, ...options } = drawn;
  const figure = (kind === "line" ? lineChart : barChart)({ ...options, labels: days });
  const csv = chartCsv(days, drawn.series);
  return h(
    "div",
    { class: "chart-block", dataset: { chart: id, currency } },
    figure,
    h(
      "p",
      { class: "actions" },
      h("a", {
        class: "button small csv",
        href: `data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`,
        download: csvFileName(id, currency, range),
        text: "CSV of this chart",
      }),
    ),
  );
}

function panelView(panel, days, state, several) {
  return h(
    "section",
    { class: "chart-panel", dataset: { currency: panel.currency }, "aria-label": panel.currency ? `Charts in ${panel.currency}` : "Charts" },
    several ? h("h2", { text: panel.currency }) : null,
    h("div", { class: "tiles", "aria-label": panel.currency ? `Figures in ${panel.currency}` : "Figures" }, panel.tiles.map(tileView)),
    h("div", { class: "charts" }, panel.charts.map((drawn) => chartView(drawn, days, panel.currency, state.range))),
  );
}

export async function render(section, { query, navigate }) {
  const state = readChartState(query);
  const chart = chartNamed(state.chart);
  const days = daysBetween(state.range.from, state.range.to);
  const [rates, outcome] = await Promise.all([
    loadRates(state),
    load(chart, state).then(
      (answers) => ({ answers }),
      (error) => {
        // A refusal the page can explain (a missing exchange rate, a bad range) is shown with the form to change it.
        if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 401) return { error };
        throw error;
      },
    ),
  ]);
  const { range } = state;
  const inWhat = state.currency ? `in ${state.currency}` : "each currency as paid";
  const { chart: _chart, from: _from, to: _to, environment: _environment, ...keep } = stateQuery(state);
  replace(
    section,
    pageHeading("Charts"),
    h("p", { class: "lede", text: `${chart.label}, ${range.from} to ${range.to} (UTC days), ${range.environment} purchases, ${inWhat}.` }),
    h("p", { class: "muted" }, "What each figure counts: ", h("code", { text: chart.definition }), "."),
    range.problem ? h("p", { class: "error", role: "alert", text: range.problem }) : null,
    optionsForm(chart, state, rates, navigate),
    rangeForm(route, range, navigate, { keep: { chart: chart.id, ...keep } }),
  );
  if (outcome.error) {
    append(section, h("p", { class: "error", role: "alert", id: "chart-error", text: outcome.error.message }));
    return;
  }
  const panels = chart.panels(outcome.answers, state, days);
  if (panels.length === 0) {
    append(section, h("p", { class: "notice", text: `No ${range.environment} subscriptions in this range.` }));
    return;
  }
  append(section, panels.map((panel) => panelView(panel, days, state, panels.length > 1)));
}
