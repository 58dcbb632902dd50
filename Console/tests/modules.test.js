// Every page module (and what it imports) loads: each name imported exists where it is imported from. Node links the
// modules without running a browser: no page touches the DOM when it loads, only when it renders. app.js and
// signin.js, which find their elements as they load, are checked by the browser tests.

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { describe, it } from "node:test";

const pages = readdirSync(new URL("../js/pages/", import.meta.url)).filter((name) => name.endsWith(".js"));

describe("modules", () => {
  it("finds the pages", () => {
    assert.ok(pages.length >= 10, pages.join(", "));
  });
  for (const name of pages) {
    it(`links js/pages/${name}`, async () => {
      const page = await import(`../js/pages/${name}`);
      assert.ok(Object.keys(page).length > 0, `${name} exports nothing`);
    });
  }
  it("gives every routed page a render function", async () => {
    for (const name of ["overview", "charts", "account", "customers", "customer", "catalog", "product", "import", "offerings", "offering", "experiments", "experiment", "content", "webhooks", "settings", "audit", "verification"]) {
      const page = await import(`../js/pages/${name}.js`);
      assert.equal(typeof page.render, "function", name);
    }
  });
});
