// Building the page's elements from code: text is always set as text (never parsed as HTML), so nothing a customer
// id or a product name holds can become markup. The content security policy forbids inline styles and scripts; only
// classes and attributes are set here.

/**
 * Makes an element. `attributes`: `class`, `text`, `on<Event>` handlers (`onclick`), `dataset` (an object),
 * booleans (present when true), anything else as an attribute. `children`: nodes, strings, numbers, arrays of them;
 * `null`, `undefined` and `false` are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  return build(document.createElement(tag), attributes, children);
}

const svgNamespace = "http://www.w3.org/2000/svg";

/** Makes an SVG element, like `h`. */
export function s(tag, attributes = {}, ...children) {
  return build(document.createElementNS(svgNamespace, tag), attributes, children);
}

function build(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") {
      element.textContent = String(value);
    } else if (name === "dataset") {
      for (const [key, item] of Object.entries(value)) element.dataset[key] = String(item);
    } else if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "value" && "value" in element && element.namespaceURI !== svgNamespace) {
      element.value = value;
    } else if (name === "checked" || name === "selected") {
      element[name] = Boolean(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children (see `h`: nodes, text, arrays of them) to `element`. */
export function append(element, ...children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Replaces everything in `element` with `children`. */
export function replace(element, ...children) {
  element.replaceChildren();
  return append(element, children);
}

/** A table: `columns` are header texts, `rows` arrays of cells (nodes or text). Wrapped so that a wide table scrolls
 *  inside its own box, never the page. */
export function table(columns, rows, { caption, className } = {}) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: className },
      caption ? h("caption", { text: caption }) : null,
      h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column)))),
      h(
        "tbody",
        {},
        rows.length === 0
          ? h("tr", {}, h("td", { colspan: columns.length, class: "empty", text: "Nothing yet." }))
          : rows.map((row) =>
              row instanceof Node ? row : h("tr", {}, row.map((cell) => (cell instanceof Node && cell.tagName === "TD" ? cell : h("td", {}, cell)))),
            ),
      ),
    ),
  );
}

/** A definition list from pairs of term and description. */
export function facts(pairs, className = "facts") {
  return h(
    "dl",
    { class: className },
    pairs.filter(Boolean).map(([term, description]) => [h("dt", {}, term), h("dd", {}, description)]),
  );
}

/** A labelled form field: the label is tied to the control by id. */
let fieldCounter = 0;
export function field(labelText, control, hint) {
  if (!control.id) control.id = `field-${++fieldCounter}`;
  const parts = [h("label", { for: control.id }, labelText), control];
  if (hint) {
    const hintID = `${control.id}-hint`;
    control.setAttribute("aria-describedby", hintID);
    parts.push(h("small", { id: hintID, class: "hint" }, hint));
  }
  return h("div", { class: "field" }, parts);
}

/** A select with `options` as `[value, text]` pairs (or plain values) and `selected` chosen. */
export function select(options, selected, attributes = {}) {
  return h(
    "select",
    attributes,
    options.map((option) => {
      const [value, text] = Array.isArray(option) ? option : [option, option];
      return h("option", { value, selected: value === selected }, text);
    }),
  );
}

/** A status badge (`good`, `bad`, `warn` or `neutral`). */
export function badge(text, tone = "neutral") {
  return h("span", { class: `badge ${tone}` }, text);
}

/** A page's heading, focusable so that navigation can move focus to it. */
export function pageHeading(text) {
  return h("h1", { tabindex: "-1", class: "page-heading" }, text);
}

/** A link to a route of the console. */
export function link(route, text, attributes = {}) {
  return h("a", { href: `#${route}`, ...attributes }, text);
}

/** Makes a form read only, for a role that may see but not change what it shows: its controls disabled, its buttons
 *  removed (links stay). The server refuses the change anyway; this only spares the user a refusal. */
export function readOnly(form) {
  for (const button of form.querySelectorAll("button")) button.remove();
  for (const control of form.querySelectorAll("input, select, textarea")) control.disabled = true;
  form.classList.add("read-only");
  return form;
}
