// @ts-check
/** Small DOM helpers: build elements, format values, tell screen readers what changed. */

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * An element with attributes (on* functions become listeners; true/false toggle a bare attribute).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "number" ? String(child) : child);
  }
  return element;
}

/**
 * A captioned table in its scrolling wrapper, with a header row of column names (and a hidden
 * "Actions" column when the rows carry buttons) over `body`.
 * @param {{ caption: string, hiddenCaption?: boolean, columns: string[], actions?: boolean }} layout
 * @param {HTMLTableSectionElement} body
 */
export function dataTable(layout, body) {
  const headers = layout.columns.map((label) => h("th", { scope: "col" }, label));
  if (layout.actions) {
    headers.push(h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")));
  }
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", { class: layout.hiddenCaption ? "visually-hidden" : undefined }, layout.caption),
      h("thead", {}, h("tr", {}, ...headers)),
      body,
    ),
  );
}

/** @param {string | null | undefined} iso */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "—";
}

/** @param {number} value */
export function integer(value) {
  return value.toLocaleString("en-US");
}

/** @param {number} seconds */
export function duration(seconds) {
  return `${seconds.toFixed(1)} s`;
}

/** A message for assistive technology (the polite live region). @param {string} text */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  // A new text node after a tick, so the same message twice is read twice.
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

/** An error box (role=alert) for a failed action. @param {unknown} error */
export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error));
}

/**
 * Runs a button's action with the button disabled (no second submit while the first is on its
 * way), hands a failure to `onError`, and enables the button again either way.
 * @param {HTMLButtonElement} button
 * @param {() => Promise<void>} action
 * @param {(error: unknown) => void} onError
 */
export async function whileDisabled(button, action, onError) {
  button.disabled = true;
  try {
    await action();
  } catch (error) {
    onError(error);
  } finally {
    button.disabled = false;
  }
}

/**
 * Calls `tick` now and then every `ms` until the returned function is called; one call at a time.
 * @param {number} ms
 * @param {() => Promise<boolean | void>} tick resolves false to stop
 * @returns {() => void}
 */
export function repeat(ms, tick) {
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const run = async () => {
    let again = true;
    try {
      again = (await tick()) !== false;
    } catch {
      // A failed poll is retried on the next tick.
    }
    if (!stopped && again) timer = setTimeout(run, ms);
  };
  run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * Asks for confirmation in a modal <dialog> (focus trapped, Escape cancels).
 * @param {string} question
 * @param {string} confirmLabel
 * @returns {Promise<boolean>}
 */
export function confirmDialog(question, confirmLabel) {
  return new Promise((resolve) => {
    const dialog = h(
      "dialog",
      { "aria-labelledby": "confirm-question" },
      h(
        "form",
        { method: "dialog" },
        h("p", { id: "confirm-question" }, question),
        h(
          "div",
          { class: "actions" },
          h("button", { value: "cancel", autofocus: true }, "Cancel"),
          h("button", { value: "confirm", class: "danger" }, confirmLabel),
        ),
      ),
    );
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "confirm");
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
