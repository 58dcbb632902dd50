// Importing a catalog document (#/catalog/import): the document is first sent as a dry run
// (PUT /v1/admin/catalog?dry_run=true, which writes nothing) and the difference is shown: products created, updated
// (with each changed field, old and new), deleted and unchanged. Only then can the same document be applied, after a
// confirmation; editing the document asks for a new dry run. The difference is worked out in pure/catalog.js.

import { get, put } from "../api.js";
import { confirmAction } from "../dialog.js";
import { h, append, field, link, pageHeading, replace, table } from "../dom.js";
import { byID, documentProducts, fieldChanges, importSummary, shortValue } from "../pure/catalog.js";
import { mayCall } from "../pure/roles.js";

// Data.

/** The dry run of `catalogDocument` and the catalog as it is now. */
async function dryRun(catalogDocument) {
  const [result, current] = await Promise.all([
    put("/v1/admin/catalog", catalogDocument, { query: { dry_run: "true" } }),
    get("/v1/admin/catalog"),
  ]);
  return { result, current };
}

// Markup.

function diffGroup(label, ids, kind) {
  return h(
    "section",
    { class: `diff-group ${kind}`, dataset: { diff: kind, count: ids.length } },
    h("h3", { text: `${label}: ${ids.length}` }),
    ids.length ? h("ul", {}, ids.map((id) => h("li", {}, h("code", { text: id })))) : null,
  );
}

function updatedProduct(id, before, after) {
  return h(
    "div",
    { class: "diff-product", dataset: { product: id } },
    h("h4", {}, h("code", { text: id })),
    table(
      ["Field", "Now", "After the import"],
      fieldChanges(before, after).map((change) => [
        h("code", { text: change.name }),
        h("del", { text: shortValue(change.before) }),
        h("ins", { text: shortValue(change.after) }),
      ]),
    ),
  );
}

function diffView(result, current, products) {
  const old = byID(current);
  const next = byID(products);
  return h(
    "div",
    { class: "diff", id: "import-diff" },
    diffGroup("Created", result.created, "created"),
    h(
      "section",
      { class: "diff-group updated", dataset: { diff: "updated", count: result.updated.length } },
      h("h3", { text: `Updated: ${result.updated.length}` }),
      result.updated.map((id) => updatedProduct(id, old.get(id), next.get(id))),
    ),
    diffGroup("Deleted", result.deleted, "deleted"),
    diffGroup("Unchanged", result.unchanged, "unchanged"),
  );
}

/** The button applying a previewed import, after a confirmation; it does nothing once the document has changed. */
function applyButton({ result, catalogDocument, isCurrent, errorBox, navigate }) {
  const apply = h("button", {
    type: "button",
    class: "button primary",
    id: "apply-import",
    text: "Apply this import",
    onclick: async () => {
      if (!isCurrent()) return;
      const confirmed = await confirmAction({
        title: "Apply this catalog?",
        message: `${importSummary(result)} The catalog becomes exactly this document.`,
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
  return apply;
}

function parseDocument(text, errorBox) {
  try {
    return JSON.parse(text);
  } catch (error) {
    errorBox.textContent = `The document is not JSON: ${error.message}`;
    errorBox.focus();
    return undefined;
  }
}

/** The form's submission: a dry run of the document, whose difference is shown with the button applying it. */
function previewer({ documentInput, previewButton, errorBox, preview, state, navigate }) {
  return async (event) => {
    event.preventDefault();
    errorBox.textContent = "";
    replace(preview);
    const text = documentInput.value;
    const catalogDocument = parseDocument(text, errorBox);
    if (catalogDocument === undefined) return;
    previewButton.disabled = true;
    try {
      const { result, current } = await dryRun(catalogDocument);
      state.previewed = text;
      const isCurrent = () => documentInput.value === state.previewed;
      replace(
        preview,
        h("h2", { text: "What the import would change" }),
        h("p", { text: "Nothing has been changed yet: this is a dry run." }),
        diffView(result, current.products, documentProducts(catalogDocument)),
        h("div", { class: "actions" }, applyButton({ result, catalogDocument, isCurrent, errorBox, navigate })),
      );
    } catch (error) {
      errorBox.textContent = `The document was refused: ${error.message}`;
      errorBox.focus();
    } finally {
      previewButton.disabled = false;
    }
  };
}

function documentInputs(preview, state) {
  const documentInput = h("textarea", { name: "document", rows: "14", spellcheck: "false", class: "code" });
  const fileInput = h("input", { type: "file", accept: "application/json,.json" });
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files && fileInput.files[0];
    if (!file) return;
    documentInput.value = await file.text();
    documentInput.dispatchEvent(new Event("input"));
  });
  documentInput.addEventListener("input", () => {
    if (state.previewed !== null && documentInput.value !== state.previewed) {
      state.previewed = null;
      replace(preview, h("p", { class: "notice", text: "The document changed: preview it again before applying it." }));
    }
  });
  return { documentInput, fileInput };
}

function loadCurrentButton(documentInput, errorBox) {
  return h("button", {
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
}

export async function render(section, { navigate, session }) {
  if (!mayCall(session && session.role, "PUT", "/v1/admin/catalog")) {
    const text = "Importing a catalog is a developer's: your role can read the catalog, not change it.";
    replace(section, pageHeading("Import a catalog"), h("p", { class: "notice", text }), link("/catalog", "Back to the catalog"));
    return;
  }
  const errorBox = h("div", { class: "error", role: "alert", tabindex: "-1" });
  const preview = h("div", { class: "preview", "aria-live": "polite" });
  /** The text of the document last previewed (`null`: none, or it changed since). */
  const state = { previewed: null };
  const { documentInput, fileInput } = documentInputs(preview, state);
  const previewButton = h("button", { type: "submit", class: "button primary", text: "Preview changes (dry run)" });
  const form = h(
    "form",
    {
      class: "import-form",
      "aria-label": "Catalog document",
      onsubmit: previewer({ documentInput, previewButton, errorBox, preview, state, navigate }),
    },
    field("Catalog document (JSON, as the export writes it)", documentInput),
    field("Or read it from a file", fileInput),
    h("div", { class: "actions" }, previewButton, loadCurrentButton(documentInput, errorBox), link("/catalog", "Back to the catalog", { class: "button" })),
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
