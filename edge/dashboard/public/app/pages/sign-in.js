// @ts-check
import { call } from "../api.js";
import { errorBox, h, whileDisabled } from "../dom.js";

/**
 * The sign-in form (email and password); a one-time link signs in without it.
 * @param {HTMLElement} main
 * @param {(session: any) => void} onSignedIn
 * @param {string} [problem] shown above the form (an expired session, a used link)
 */
export function renderSignIn(main, onSignedIn, problem) {
  const email = h("input", {
    id: "email",
    name: "email",
    type: "email",
    autocomplete: "username",
    required: true,
  });
  const password = h("input", {
    id: "password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
  });
  const problems = h("div", {}, problem ? errorBox(problem) : null);
  const submit = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    { class: "card narrow", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title", tabindex: "-1" }, "Sign in"),
    problems,
    h("p", { class: "field" }, h("label", { for: "email" }, "Email address"), email),
    h("p", { class: "field" }, h("label", { for: "password" }, "Password"), password),
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problems.replaceChildren();
    await whileDisabled(
      submit,
      async () =>
        onSignedIn(await call("POST", "/session", { email: email.value, password: password.value })),
      (error) => {
        problems.replaceChildren(errorBox(error));
        password.select();
      },
    );
  });
  main.replaceChildren(form);
  email.focus();
}
