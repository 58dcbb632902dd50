// A path with its query, as the API and the CSV links take it. Pure.

/** Builds `path?query` from an object; `undefined`, `null` and empty values are left out. */
export function withQuery(path, query = {}) {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    parameters.set(name, String(value));
  }
  const text = parameters.toString();
  return text ? `${path}?${text}` : path;
}

/** Whether a paged list has another page: its `next_before` is set. */
export function hasMore(nextBefore) {
  return nextBefore !== undefined && nextBefore !== null;
}
