// @ts-check
import { call } from "../api.js";
import { announce, confirmDialog, dataTable, errorBox, h, when } from "../dom.js";
import { planNotice } from "../plan.js";

/**
 * API keys: the list (prefix, name, created, last used), a new key shown once, revoke with confirmation.
 * @param {HTMLElement} view
 */
export async function renderKeys(view) {
  const body = h("tbody");
  const problems = h("div");
  const fresh = h("div", { "aria-live": "polite" });

  async function refresh() {
    const { data } = await call("GET", "/keys");
    body.replaceChildren(...data.map(keyRow));
  }

  /** @param {any} key */
  function keyRow(key) {
    const label = key.name || `${key.prefix}…`;
    const revoke = h(
      "button",
      { type: "button", class: "small danger", "aria-label": `Revoke ${label}` },
      "Revoke",
    );
    revoke.addEventListener("click", async () => {
      if (
        !(await confirmDialog(
          `Revoke the key ${label}? Anything using it stops working at once.`,
          "Revoke key",
        ))
      ) {
        revoke.focus();
        return;
      }
      try {
        await call("POST", `/keys/${key.key_id}/revoke`);
        announce(`Key ${label} revoked.`);
        await refresh();
        view.querySelector("h1")?.focus();
      } catch (error) {
        problems.replaceChildren(errorBox(error));
      }
    });
    return h(
      "tr",
      { "data-key": key.key_id },
      h("th", { scope: "row" }, h("code", {}, `${key.prefix}…`)),
      h("td", { "data-label": "Name" }, key.name || "—"),
      h("td", { "data-label": "Created" }, when(key.created_at)),
      h("td", { "data-label": "Last used" }, key.last_used_at ? when(key.last_used_at) : "never"),
      h("td", { "data-label": "State" }, key.revoked_at ? `revoked ${when(key.revoked_at)}` : "active"),
      h("td", {}, key.revoked_at ? null : revoke),
    );
  }

  const name = h("input", { id: "key-name", name: "name", maxlength: "100", autocomplete: "off" });
  const create = h(
    "form",
    { class: "card" },
    h("h2", {}, "New key"),
    h("p", { class: "field" }, h("label", { for: "key-name" }, "Name (what uses it)"), name),
    h("button", { type: "submit" }, "Create key"),
    fresh,
  );
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    problems.replaceChildren();
    try {
      const key = await call("POST", "/keys", { name: name.value });
      const copy = h("button", { type: "button", class: "small" }, "Copy");
      copy.addEventListener("click", () =>
        navigator.clipboard?.writeText(key.api_key).then(() => announce("Copied.")),
      );
      fresh.replaceChildren(
        h(
          "div",
          { class: "secret", role: "alert" },
          h("p", {}, "Your new key. Copy it now: it is shown only this once."),
          h("p", {}, h("code", { id: "new-key" }, key.api_key), " ", copy),
        ),
      );
      name.value = "";
      await refresh();
    } catch (error) {
      problems.replaceChildren(errorBox(error));
    }
  });

  const account = await call("GET", "/account");
  view.append(
    h("h1", {}, "API keys"),
    h("p", {}, "Keys let your own systems use the API (Growth and Scale plans). The dashboard needs none."),
    planNotice(account) ?? "",
    problems,
    create,
    dataTable(
      { caption: "Your keys", columns: ["Key", "Name", "Created", "Last used", "State"], actions: true },
      body,
    ),
  );
  await refresh();
}
