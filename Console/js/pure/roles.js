// What a console session's role may call, so that a page offers only the controls the server would allow. The
// server is the enforcer (Services/Gateway/Console/Team/ConsoleRoles.swift, whose table this one copies rule for rule:
// tests/roles.test.js reads the Swift file and fails when the two differ); this only spares a user buttons that
// would be refused. Pure.

/** The roles, least first: each holds every right of the ones before it. */
export const roles = ["viewer", "support", "developer", "admin"];

/** The table, first match wins: `[methods, path prefix, least role]`; `read` is GET and HEAD, `write` every other
 *  method, `*` in a prefix matches any one segment. A path no rule names is the admin's. */
export const rules = [
  ["read", "/v1/admin/reports", "viewer"],
  ["read", "/v1/catalog", "viewer"],
  ["read", "/v1/offerings", "viewer"],
  ["read", "/v1/admin/products", "viewer"],
  ["read", "/v1/admin/catalog", "viewer"],
  ["read", "/v1/admin/offerings", "viewer"],
  ["read", "/v1/admin/offering-rules", "viewer"],
  ["read", "/v1/admin/experiments", "viewer"],
  ["read", "/v1/admin/exchange-rates", "viewer"],
  ["any", "/v1/customers", "support"],
  ["any", "/v1/admin/customers", "support"],
  ["any", "/v1/admin/events", "support"],
  ["any", "/v1/admin/verification-attempts", "support"],
  ["any", "/v1/admin/aliases", "support"],
  ["any", "/v1/admin/purchases", "support"],
  ["read", "/v1/admin/stores/*/orders", "support"],
  ["read", "/v1/admin/stores/*/refunds", "support"],
  ["write", "/v1/admin/stores/*/subscriptions", "support"],
  ["any", "/v1/purchases", "support"],
  ["any", "/v1/receipts", "support"],
  ["any", "/v1/content", "support"],
  ["any", "/v1/admin/products", "developer"],
  ["any", "/v1/admin/catalog", "developer"],
  ["any", "/v1/admin/offerings", "developer"],
  ["any", "/v1/admin/offering-rules", "developer"],
  ["any", "/v1/admin/experiments", "developer"],
  ["any", "/v1/admin/exchange-rates", "developer"],
  ["any", "/v1/admin/content", "developer"],
  ["any", "/v1/admin/entitlements", "developer"],
  ["any", "/v1/admin/webhook-endpoints", "developer"],
  ["any", "/v1/admin/stores/*/notification-recovery", "developer"],
  ["read", "/v1/admin/stores", "developer"],
  ["any", "/v1/admin/keys", "admin"],
  ["any", "/v1/admin/users", "admin"],
  ["any", "/v1/admin/stores", "admin"],
];

function covers(methods, method) {
  const safe = method === "GET" || method === "HEAD";
  return methods === "any" || (methods === "read" ? safe : !safe);
}

/** The least role that may call `method` on `path` (its query ignored). */
export function minimumRole(method, path) {
  const segments = path.split("?")[0].split("/").filter(Boolean);
  if (segments.some((segment) => /^(\.|%2e)+$/i.test(segment))) return "admin";
  const rule = rules.find(([methods, prefix]) => {
    const wanted = prefix.split("/").filter(Boolean);
    return (
      covers(methods, method.toUpperCase()) &&
      segments.length >= wanted.length &&
      wanted.every((item, index) => item === "*" || item === segments[index])
    );
  });
  return rule ? rule[2] : "admin";
}

/** Whether a session of `role` may call `method` on `path`. An unknown role may do nothing; a session without one
 *  (none is made so) is treated as the least. */
export function mayCall(role, method, path) {
  const held = roles.indexOf(role || "viewer");
  return held >= 0 && held >= roles.indexOf(minimumRole(method, path));
}

/** The call each page of the nav cannot be shown without (its `data-section`); a section not listed is shown to all. */
export const sectionCalls = {
  overview: ["GET", "/v1/admin/reports/sales"],
  charts: ["GET", "/v1/admin/reports/mrr"],
  customers: ["GET", "/v1/admin/customers"],
  catalog: ["GET", "/v1/admin/products"],
  offerings: ["GET", "/v1/admin/offerings"],
  experiments: ["GET", "/v1/admin/experiments"],
  content: ["GET", "/v1/admin/content"],
  webhooks: ["GET", "/v1/admin/webhook-endpoints"],
  settings: ["GET", "/v1/admin/keys"],
  verification: ["GET", "/v1/admin/verification-attempts"],
  audit: ["GET", "/v1/admin/audit-log"],
  team: ["GET", "/v1/admin/users"],
};

/** Whether the nav shows `section` to a session of `role`. */
export function maySee(role, section) {
  const call = sectionCalls[section];
  return !call || mayCall(role, call[0], call[1]);
}

/** Whether `session` (`GET /console/api/session`) may change offerings, targeting rules and experiments
 *  (developers and admins, as the server's table says). */
export function mayChangeOfferings(session) {
  const role = session && session.role;
  return (
    mayCall(role, "PUT", "/v1/admin/offerings") &&
    mayCall(role, "PUT", "/v1/admin/offering-rules") &&
    mayCall(role, "POST", "/v1/admin/experiments")
  );
}
