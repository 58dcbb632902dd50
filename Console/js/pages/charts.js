// Charts: the subscription charts of a range of UTC days in one reporting currency (or each currency as paid), from
// the reports API (GET /v1/admin/reports/<chart>; definitions in docs/charts.md). Every point and bar names its figure
// on hover; each chart has a CSV of exactly the series it draws. Which charts there are, what they ask and what they
// draw is pure/charts.js's; this module fetches and builds the page.

import { ApiError, get } from "../api.js";
import { barChart, lineChart } from "../chart.js";
import { h, append, field, pageHeading, replace, select } from "../dom.js";
import { daysBetween } from "../pure/format.js";
import {
  chartNamed,
  charts,
  csvFileName,
  currencyOptions,
  drawnCsv,
  groupings,
  measures,
  periods,
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
  const period = chart.periods ? select(periods, state.period, { name: "period", id: "chart-period" }) : null;
  return h(
    "form",
    {
      class: "range",
      id: "chart-options",
      "aria-label": "Chart",
      onsubmit: (event) => {
        event.preventDefault();
        // Another kind of chart (daily or monthly) starts on its own default range.
        const other = chartNamed(chartPicker.value);
        const range = (other.defaultDays || 30) === (chart.defaultDays || 30) ? {} : { from: undefined, to: undefined };
        navigate(route, {
          ...stateQuery(state),
          ...range,
          chart: chartPicker.value,
          currency: currency.value || undefined,
          group: group ? group.value || undefined : undefined,
          measure: measure && measure.value === "arr" ? "arr" : undefined,
          period: period && period.value === "day" ? "day" : undefined,
        });
      },
    },
    field("Chart", chartPicker),
    field("Reporting currency", currency, "At the exchange rates the app loaded."),
    group ? field("Group by", group) : null,
    measure ? field("Revenue as", measure) : null,
    period ? field("Rows and cohorts by", period) : null,
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

/** A table of percentages (the retention triangle): a row per cohort, each cell's counts on hover (its title), shaded
 *  by its value. */
function tableChart(drawn) {
  return h(
    "figure",
    { class: "chart table-chart" },
    h("figcaption", { text: drawn.title }),
    h(
      "table",
      { class: "triangle" },
      h("thead", {}, h("tr", {}, drawn.head.map((text) => h("th", { scope: "col", text })))),
      h(
        "tbody",
        {},
        drawn.rows.map((row) =>
          h(
            "tr",
            { dataset: { cohort: row.cohort } },
            h("th", { scope: "row", text: row.cohort }),
            h("td", { class: "number", text: String(row.subscriptions) }),
            row.cells.map((cell) =>
              h("td", {
                class: cell.value === null ? "number" : `number share share-${Math.round(cell.value / 10)}`,
                title: cell.title,
                text: cell.text,
                dataset: { period: cell.period },
              }),
            ),
          ),
        ),
      ),
    ),
  );
}

/** A chart (over its own labels, or the range's days) and the link to its CSV, made from the same figures. */
function chartView(drawn, days, currency, range) {
  const { id, kind, ...options } = drawn;
  const draw = { line: lineChart, bar: barChart, table: tableChart }[kind];
  const figure = kind === "table" ? draw(drawn) : draw({ ...options, labels: drawn.labels || days });
  const csv = drawnCsv(drawn, days);
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
