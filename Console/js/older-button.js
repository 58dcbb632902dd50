// The "Older …" button under a list that pages with `before`/`next_before` (the audit log, the verification attempts):
// each press appends the next older page to the table, and the button hides when there is none.

import { h, append } from "./dom.js";
import { hasMore } from "./pure/query.js";

/** The button labelled `text` that appends `rows(page)` of the page `load(before)` answers to `tbody`, starting
 *  before `firstBefore` (the first page's `next_before`); a failure is said in `section`. */
export function olderButton(section, tbody, { text, firstBefore, load, rows }) {
  let before = firstBefore;
  const more = h("button", {
    type: "button",
    class: "button",
    text,
    hidden: !hasMore(before),
    onclick: async () => {
      more.disabled = true;
      try {
        const page = await load(before);
        tbody.append(...rows(page));
        before = page.next_before;
        more.hidden = !hasMore(before);
      } catch (error) {
        append(section, h("p", { class: "error", role: "alert", text: `${text} could not be read: ${error.message}` }));
      } finally {
        more.disabled = false;
      }
    },
  });
  return more;
}
