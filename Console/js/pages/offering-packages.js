// The offering editor's packages: an ordered list of rows, each a package id, the catalog product it sells and, per
// platform, the store product id selling it there (empty: the product's own). Rows are added, removed and moved
// here; `read()` answers them as typed, for pure/offerings.js's editedOffering.

import { h, replace, select } from "../dom.js";
import { storeName } from "../pure/format.js";
import { platforms } from "../pure/offerings.js";

function packageRow(item, productIDs, rows) {
  const packageID = h("input", { type: "text", name: "package_id", value: item.package_id || "", placeholder: "$monthly", autocomplete: "off", "aria-label": "Package id" });
  const options = [["", "choose a product"], ...productIDs.map((id) => [id, id])];
  if (item.product_id && !productIDs.includes(item.product_id)) options.push([item.product_id, `${item.product_id} (not in the catalog)`]);
  const product = select(options, item.product_id || "", { name: "product_id", "aria-label": "Product" });
  const storeIDs = platforms.map((platform) =>
    h("input", {
      type: "text",
      name: `store-${platform}`,
      value: (item.store_product_ids || {})[platform] || "",
      placeholder: `${storeName(platform)} id (optional)`,
      autocomplete: "off",
      "aria-label": `${storeName(platform)} product id`,
      dataset: { platform },
    }),
  );
  const row = h(
    "li",
    { class: "package-row" },
    packageID,
    product,
    storeIDs,
    h("button", { type: "button", class: "button small", text: "Up", "aria-label": "Move the package up", onclick: () => rows.move(row, -1) }),
    h("button", { type: "button", class: "button small", text: "Remove", "aria-label": "Remove the package", onclick: () => rows.remove(row) }),
  );
  row.read = () => ({
    package_id: packageID.value,
    product_id: product.value,
    store_product_ids: Object.fromEntries(storeIDs.map((input) => [input.dataset.platform, input.value])),
  });
  return row;
}

/** The packages' list for `packages` (as stored), `productIDs` to choose from; `onChange` runs on every edit. */
export function packagesEditor(packages, productIDs, onChange) {
  const list = h("ol", { class: "packages-editor", id: "packages" });
  let rows = [];
  const draw = () => {
    replace(list, rows);
    onChange();
  };
  const controls = {
    move(row, delta) {
      const index = rows.indexOf(row);
      const target = index + delta;
      if (index < 0 || target < 0 || target >= rows.length) return;
      rows.splice(index, 1);
      rows.splice(target, 0, row);
      draw();
    },
    remove(row) {
      rows = rows.filter((candidate) => candidate !== row);
      draw();
    },
  };
  rows = (packages.length ? packages : [{}]).map((item) => packageRow(item, productIDs, controls));
  list.addEventListener("input", onChange);
  list.addEventListener("change", onChange);
  replace(list, rows);
  const add = h("button", {
    type: "button",
    class: "button small",
    id: "add-package",
    text: "Add package",
    onclick: () => {
      rows.push(packageRow({}, productIDs, controls));
      draw();
      rows[rows.length - 1].querySelector("input").focus();
    },
  });
  return { list, add, read: () => rows.map((row) => row.read()) };
}
