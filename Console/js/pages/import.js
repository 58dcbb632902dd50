// Importing a catalog document (#/catalog/import): the document is first sent as a dry run
// (PUT /v1/admin/catalog?dry_run=true, which writes nothing) and the difference is shown: products created, updated
// (with each changed field, old and new), deleted and unchanged. Only then can the same document be applied, after a
// confirmation; editing the document asks for a new dry run.

import { get, put } from "../api.js";
import { confirmAction } from "../dialog.js";
import { h, append, field, link, pageHeading, replace, table } from "../dom.js";

/** JSON with every object's keys in order, so that two equal values always read the same. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "(absent)";
}

function short(value) {
  if (value === undefined) return "(absent)";
  const text = canonical(value);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The fields whose values differ between two products, down to the changed leaf (`localizations.en.name`), with
 *  both values. */
export function fieldChanges(before, after, prefix = "") {
  const names = [...new Set([...Object.keys(before || {}), ...Object.keys(after || {})])].sort();
  return names.flatMap((name) => {
    const old = before?.[name];
    const next = after?.[name];
    if (canonical(old) === canonical(next)) return [];
    const path = prefix ? `${prefix}.${name}` : name;
    if (isObject(old) && isObject(next)) return fieldChanges(old, next, path);
    return [{ name: path, before: old, after: next }];
  });
}

function diffView(result, current, documentProducts) {
  const byID = (products) => new Map(products.map((product) => [product.product_id, product]));
  const old = byID(current);
  const next = byID(documentProducts);
  const list = (label, ids, kind) =>
    h(
      "section",
      { class: `diff-group ${kind}`, dataset: { diff: kind, count: ids.length } },
      h("h3", { text: `${label}: ${ids.length}` }),
      ids.length ? h("ul", {}, ids.map((id) => h("li", {}, h("code", { text: id })))) : null,
    );
  return h(
    "div",
    { class: "diff", id: "import-diff" },
    list("Created", result.created, "created"),
    h(
      "section",
      { class: "diff-group updated", dataset: { diff: "updated", count: result.updated.length } },
      h("h3", { text: `Updated: ${result.updated.length}` }),
      result.updated.map((id) =>
        h(
          "div",
          { class: "diff-product", dataset: { product: id } },
          h("h4", {}, h("code", { text: id })),
          table(
            ["Field", "Now", "After the import"],
            fieldChanges(old.get(id), next.get(id)).map((change) => [
              h("code", { text: change.name }),
              h("del", { text: short(change.before) }),
              h("ins", { text: short(change.after) }),
            ]),
          ),
        ),
      ),
    ),
    list("Deleted", result.deleted, "deleted"),
    list("Unchanged", result.unchanged, "unchanged"),
  );
}

export async function render(section, { navigate, notify }) {
  const documentInput = h("textarea", { name: "document", rows: "14", spellcheck: "false", class: "code" });
  const fileInput = h("input", { type: "file", accept: "application/json,.json" });
  const errorBox = h("div", { class: "error", role: "alert", tabindex: "-1" });
  const preview = h("div", { class: "preview", "aria-live": "polite" });
  let previewed = null;

  fileInput.addEventListener("change", async () => {
    const file = fileInput.files && fileInput.files[0];
    if (!file) return;
    documentInput.value = await file.text();
    documentInput.dispatchEvent(new Event("input"));
  });
  documentInput.addEventListener("input", () => {
    if (previewed !== null && documentInput.value !== previewed) {
      previewed = null;
      replace(preview, h("p", { class: "notice", text: "The document changed: preview it again before applying it." }));
    }
  });

  const loadCurrent = h("button", {
    type: "button",
    class: "button",
    text: "Start from the current catalog",
    onclick: async () => {
      try {
        documentInput.value = JSON.stringify(await get("/v1/admin/catalog"), null, 2);
        documentInput.dispatchEvent(new Event("input"));
        documentInput.focus();
      } catch (error) {
        errorBox.textContent = `The catalog could not be read: ${error.message}`;
      }
    },
  });

  const previewButton = h("button", { type: "submit", class: "button primary", text: "Preview changes (dry run)" });
  const form = h(
    "form",
    {
      class: "import-form",
      "aria-label": "Catalog document",
      onsubmit: async (event) => {
        event.preventDefault();
        errorBox.textContent = "";
        replace(preview);
        const text = documentInput.value;
        let catalogDocument;
        try {
          catalogDocument = JSON.parse(text);
        } catch (error) {
          errorBox.textContent = `The document is not JSON: ${error.message}`;
          errorBox.focus();
          return;
        }
        previewButton.disabled = true;
        try {
          const [result, current] = await Promise.all([
            put("/v1/admin/catalog", catalogDocument, { query: { dry_run: "true" } }),
            get("/v1/admin/catalog"),
          ]);
          previewed = text;
          const apply = h("button", {
            type: "button",
            class: "button primary",
            id: "apply-import",
            text: "Apply this import",
            onclick: async () => {
              if (documentInput.value !== previewed) return;
              const confirmed = await confirmAction({
                title: "Apply this catalog?",
                message: `${result.created.length} product(s) created, ${result.updated.length} updated, ${result.deleted.length} deleted. The catalog becomes exactly this document.`,
                confirmLabel: "Apply import",
                danger: result.deleted.length > 0,
              });
              if (!confirmed) return;
              apply.disabled = true;
              try {
                const applied = await put("/v1/admin/catalog", catalogDocument);
                navigate(
                  "/catalog",
                  {},
                  `Imported: ${applied.created.length} created, ${applied.updated.length} updated, ${applied.deleted.length} deleted (revision ${applied.revision}).`,
                );
              } catch (error) {
                apply.disabled = false;
                errorBox.textContent = `The import was not applied: ${error.message}`;
                errorBox.focus();
              }
            },
          });
          replace(
            preview,
            h("h2", { text: "What the import would change" }),
            h("p", { text: "Nothing has been changed yet: this is a dry run." }),
            diffView(result, current.products, Array.isArray(catalogDocument.products) ? catalogDocument.products : []),
            h("div", { class: "actions" }, apply),
          );
        } catch (error) {
          errorBox.textContent = `The document was refused: ${error.message}`;
          errorBox.focus();
        } finally {
          previewButton.disabled = false;
        }
      },
    },
    field("Catalog document (JSON, as the export writes it)", documentInput),
    field("Or read it from a file", fileInput),
    h("div", { class: "actions" }, previewButton, loadCurrent, link("/catalog", "Back to the catalog", { class: "button" })),
  );

  replace(
    section,
    pageHeading("Import a catalog"),
    h("p", {
      class: "lede",
      text: "The catalog becomes exactly the document: products it does not name are deleted. Preview the changes first; nothing is written until you apply them.",
    }),
    errorBox,
  );
  append(section, form, preview);
}
