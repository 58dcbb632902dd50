// Customers: find a customer by an app user id or alias (or its beginning), a transaction id, an original
// transaction id or a Google Play order id (GET /v1/admin/customers); an App Store order id is looked up at Apple
// (GET /v1/admin/stores/apple/orders/{order_id}), as no signed transaction carries it.

import { get, segment } from "../api.js";
import { h, append, badge, field, link, pageHeading, replace, table } from "../dom.js";
import { dateTime, storeName, words } from "../pure/format.js";
import { appleOrderPath, matchName } from "../pure/lists.js";

function customerLinks(ids) {
  if (!ids.length) return "—";
  const [first, ...others] = ids;
  return h(
    "span",
    {},
    link(`/customers/${segment(first)}`, first, { class: "customer-link" }),
    others.length ? h("span", { class: "muted", text: ` (also ${others.join(", ")})` }) : null,
  );
}

async function appleOrder(container, orderID, path) {
  replace(container, h("p", { class: "loading", text: `Asking the App Store for order ${orderID}…` }));
  try {
    const order = await get(path);
    replace(
      container,
      h("h3", { text: `App Store order ${order.order_id}` }),
      table(
        ["Transaction", "Original transaction", "Product", "Purchased", "Environment", "Refunded"],
        order.transactions.map((transaction) => [
          transaction.transaction_id,
          transaction.original_transaction_id,
          transaction.store_product_id,
          dateTime(transaction.purchase_date),
          words(transaction.environment),
          transaction.revocation_date ? dateTime(transaction.revocation_date) : "no",
        ]),
      ),
      h("h3", { text: "Customers who own it here" }),
      order.customers.length
        ? h("ul", {}, order.customers.map((owner) => h("li", {}, customerLinks(owner.app_user_ids))))
        : h("p", { text: "No customer here has presented these transactions yet." }),
    );
  } catch (error) {
    replace(container, h("p", { class: "error", role: "alert", text: `The order could not be looked up: ${error.message}` }));
  }
}

function searchForm(text, navigate) {
  const input = h("input", {
    type: "search",
    name: "query",
    value: text,
    required: true,
    autocomplete: "off",
    spellcheck: "false",
  });
  return h(
    "form",
    {
      class: "search",
      role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        navigate("/customers", { query: input.value.trim() });
      },
    },
    field(
      "Find a customer",
      input,
      "An app user id or alias (or its beginning), a transaction id, an original transaction id, a Google Play order id (GPA.…) or an App Store order id.",
    ),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "button primary", text: "Search" })),
  );
}

function matchesTable(answer) {
  if (answer.matches.length === 0 && !answer.apple_order_lookup) return h("p", { text: "No customer matches." });
  return table(
    ["Matched", "Value", "Store", "Customer", "First seen", "Last seen"],
    answer.matches.map((match) => [
      badge(matchName(match.matched)),
      h("code", { text: match.value }),
      match.store ? storeName(match.store) : "—",
      customerLinks(match.app_user_ids),
      dateTime(match.first_seen),
      dateTime(match.last_seen),
    ]),
    { caption: `${answer.matches.length} match(es)` },
  );
}

function appleOrderPanel(text, lookup) {
  const orderBox = h("div", { class: "panel" });
  return [
    h(
      "div",
      { class: "panel" },
      h("p", {
        text: "This may be an App Store order id. Orders are not in the signed transactions Shopkeeper records, so only Apple can say which transactions it holds.",
      }),
      h("button", {
        type: "button",
        class: "button",
        text: `Look up order ${text} at the App Store`,
        onclick: () => appleOrder(orderBox, text, appleOrderPath(lookup, text)),
      }),
    ),
    orderBox,
  ];
}

export async function render(section, { query, navigate }) {
  const text = (query.get("query") || "").trim();
  replace(section, pageHeading("Customers"), searchForm(text, navigate));
  if (!text) return;
  const answer = await get("/v1/admin/customers", { query: text, limit: 50 });
  const results = h("div", { id: "search-results", "aria-live": "polite" });
  append(section, h("h2", { text: `Results for “${text}”` }), results);
  append(results, matchesTable(answer), answer.apple_order_lookup ? appleOrderPanel(text, answer.apple_order_lookup) : null);
}
