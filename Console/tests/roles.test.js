// What a role may call (js/pure/roles.js), held to the server's own table in ConsoleRoles.swift.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { mayCall, maySee, minimumRole, roles, rules } from "../js/pure/roles.js";

const swift = readFileSync(new URL("../../Services/Gateway/Console/Team/ConsoleRoles.swift", import.meta.url), "utf8");

describe("the roles table", () => {
  it("copies the server's table rule for rule, in its order", () => {
    const body = swift.slice(swift.indexOf("static let rules"), swift.indexOf("static func minimum"));
    const serverRules = [...body.matchAll(/\.init\(\.(read|write|any), "([^"]+)", \.(viewer|support|developer|admin)\)/g)].map(
      (match) => [match[1], match[2], match[3]],
    );
    assert.ok(serverRules.length > 20, "the Swift table was not found");
    assert.deepEqual(rules, serverRules);
  });
  it("orders the roles as the server does", () => {
    const order = swift.match(/viewer < support < developer < admin/);
    assert.ok(order);
    assert.deepEqual(roles, ["viewer", "support", "developer", "admin"]);
  });
});

describe("decisions", () => {
  // [method and path, what a viewer may, what support may]
  const calls = [
    ["GET /v1/admin/reports/mrr?currency=USD", true, true],
    ["GET /v1/admin/products", true, true],
    ["PUT /v1/admin/products/pro", false, false],
    ["PUT /v1/admin/catalog", false, false],
    ["POST /v1/customers/alice/grants", false, true],
    ["DELETE /v1/customers/alice/grants/grt_1", false, true],
    ["POST /v1/admin/events/evt_1/replay", false, true],
  ];
  it("lets a viewer read reports and the catalog and change nothing; support grant and replay, not edit the catalog", () => {
    for (const [call, viewer, support] of calls) {
      const [method, path] = call.split(" ");
      assert.deepEqual([mayCall("viewer", method, path), mayCall("support", method, path)], [viewer, support], call);
    }
  });
  it("matches a * segment, and gives an unnamed route or a dot segment to the admin", () => {
    assert.equal(minimumRole("GET", "/v1/admin/stores/stripe/orders"), "support");
    assert.equal(minimumRole("GET", "/v1/admin/stores/stripe"), "developer");
    assert.equal(minimumRole("PUT", "/v1/admin/stores/stripe"), "admin");
    assert.equal(minimumRole("GET", "/v1/admin/audit-log"), "admin");
    assert.equal(minimumRole("GET", "/v1/admin/reports/%2e%2e/keys"), "admin");
    assert.equal(mayCall("developer", "PUT", "/v1/admin/products/pro"), true);
    assert.equal(mayCall("admin", "DELETE", "/v1/admin/keys/key_1"), true);
    assert.equal(mayCall("owner", "GET", "/v1/admin/reports/mrr"), false);
  });
  it("shows each role the nav sections it can open", () => {
    const shown = (role) => ["overview", "charts", "customers", "catalog", "webhooks", "settings", "team", "offerings"].filter((section) => maySee(role, section));
    assert.deepEqual(shown("viewer"), ["overview", "charts", "catalog", "offerings"]);
    assert.deepEqual(shown("support"), ["overview", "charts", "customers", "catalog", "offerings"]);
    assert.deepEqual(shown("developer"), ["overview", "charts", "customers", "catalog", "webhooks", "offerings"]);
    assert.deepEqual(shown("admin"), ["overview", "charts", "customers", "catalog", "webhooks", "settings", "team", "offerings"]);
  });
});
