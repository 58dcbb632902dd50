// What the signed-in session's role lets the pages offer. The server holds every call to the role
// (Services/Gateway/Console/Team/ConsoleRoles.swift: viewers read offerings and experiments, developers and admins
// change them); the pages only spare a viewer controls that would be refused. Pure.

const order = ["viewer", "support", "developer", "admin"];

/** Whether `session` (`GET /console/api/session`) holds `least` or a role above it. A session without a role (an
 *  older server) is taken as the key's: a secret key or the operator acts as admin. */
export function holds(session, least) {
  if (!session) return false;
  const role = session.role || "admin";
  return order.indexOf(role) >= order.indexOf(least);
}

/** Whether the session may change the catalog, offerings, rules and experiments (developer and above). */
export function mayChangeOfferings(session) {
  return holds(session, "developer");
}
