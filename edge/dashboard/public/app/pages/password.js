// @ts-check
import { call } from "../api.js";
import { announce, errorBox, h, whileDisabled } from "../dom.js";

/**
 * Changing the signed-in owner's password: the current one and a new one of 12 characters or more.
 * The owner's other sessions end; this one stays.
 * @param {HTMLElement} view
 */
export async function renderPassword(view) {
  /** @param {string} id @param {string} autocomplete */
  const passwordField = (id, autocomplete) =>
    h("input", { id, name: id, type: "password", autocomplete, required: true, maxlength: "1024" });
  const current = passwordField("current-password", "current-password");
  const next = passwordField("new-password", "new-password");
  next.setAttribute("minlength", "12");
  next.setAttribute("aria-describedby", "new-password-help");
  const outcome = h("div", { "aria-live": "polite" });
  const submit = h("button", { type: "submit" }, "Change password");
  const form = h(
    "form",
    { class: "card narrow" },
    h("p", { class: "field" }, h("label", { for: "current-password" }, "Current password"), current),
    h(
      "p",
      { class: "field" },
      h("label", { for: "new-password" }, "New password"),
      next,
      h("span", { id: "new-password-help", class: "help" }, "At least 12 characters."),
    ),
    submit,
    outcome,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    outcome.replaceChildren();
    await whileDisabled(
      submit,
      async () => {
        await call("PUT", "/session/password", { current_password: current.value, new_password: next.value });
        form.reset();
        outcome.replaceChildren(
          h("p", { id: "password-changed" }, "Password changed. Your other sessions were signed out."),
        );
        announce("Password changed.");
      },
      (error) => {
        outcome.replaceChildren(errorBox(error));
        current.select();
      },
    );
  });
  view.append(h("h1", {}, "Change password"), form);
}
