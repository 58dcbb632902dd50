// In-page dialogs: the native modal <dialog> (the rest of the page is inert while it is open, Escape cancels it),
// with Tab and Shift-Tab kept inside it and focus given back to whatever had it before.

import { h } from "./dom.js";

let dialogCounter = 0;

function focusables(container) {
  return [...container.querySelectorAll("button, [href], input, select, textarea, [tabindex]:not([tabindex='-1'])")].filter(
    (element) => !element.disabled && !element.hidden,
  );
}

/**
 * Opens a modal dialog holding `content` and `buttons` (`{ label, value, tone }`); resolves with the chosen button's
 * value, or `null` when it is cancelled (Escape or the cancel button).
 */
export function openDialog({ title, content, buttons, initialFocus = 0 }) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const id = `dialog-${++dialogCounter}`;
    let result = null;
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": `${id}-title`, "aria-describedby": `${id}-body` });
    const actions = buttons.map((button) =>
      h("button", {
        type: "button",
        class: button.tone ? `button ${button.tone}` : "button",
        dataset: { value: String(button.value) },
        text: button.label,
        onclick: () => {
          result = button.value;
          dialog.close();
        },
      }),
    );
    dialog.append(
      h("h2", { id: `${id}-title`, text: title }),
      h("div", { id: `${id}-body`, class: "dialog-body" }, content),
      h("div", { class: "dialog-actions" }, actions),
    );
    dialog.addEventListener("keydown", (event) => {
      if (event.key !== "Tab") return;
      const items = focusables(dialog);
      if (items.length === 0) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    });
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (opener && typeof opener.focus === "function" && opener.isConnected) opener.focus();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    (actions[initialFocus] || actions[0]).focus();
  });
}

/** Asks to confirm an action; resolves `true` only when the confirming button was pressed. Focus starts on Cancel,
 *  so an Enter pressed by habit changes nothing. */
export async function confirmAction({ title, message, confirmLabel, danger = false }) {
  const answer = await openDialog({
    title,
    content: typeof message === "string" ? h("p", { text: message }) : message,
    buttons: [
      { label: "Cancel", value: false },
      { label: confirmLabel, value: true, tone: danger ? "danger" : "primary" },
    ],
  });
  return answer === true;
}

/** A button (`attributes`: its class, text, label...) that asks `question` (``confirmAction``'s) when pressed and runs
 *  `act(button)` only once it is confirmed. */
export function confirmButton(attributes, question, act) {
  const button = h("button", {
    type: "button",
    ...attributes,
    onclick: async () => {
      if (await confirmAction(question)) await act(button);
    },
  });
  return button;
}

/** Shows something once (a new secret), with one button to close it. */
export async function showOnce({ title, message }) {
  await openDialog({ title, content: message, buttons: [{ label: "Done", value: true, tone: "primary" }] });
}
