// @ts-check
/** Boot and routing: sign-in (or a one-time link), then one page per hash route (#/jobs, #/keys, …). */
import { call, SIGNED_OUT_EVENT, useCsrfToken } from "./api.js";
import { announce, errorBox, h } from "./dom.js";
import { renderClean } from "./pages/clean.js";
import { renderJob } from "./pages/job.js";
import { renderJobs } from "./pages/jobs.js";
import { renderKeys } from "./pages/keys.js";
import { renderPassword } from "./pages/password.js";
import { renderSignIn } from "./pages/sign-in.js";
import { renderUsage } from "./pages/usage.js";
import { renderWebhooks } from "./pages/webhooks.js";

/** @typedef {(view: HTMLElement, argument: string) => Promise<(() => void) | void>} Page */

/** @type {Record<string, Page>} */
const PAGES = {
  clean: renderClean,
  jobs: renderJobs,
  job: renderJob,
  keys: renderKeys,
  webhooks: renderWebhooks,
  usage: renderUsage,
  password: renderPassword,
};
const DEFAULT_ROUTE = "#/clean";
const LINK_PREFIX = "#/link/";

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const nav = /** @type {HTMLElement} */ (document.getElementById("nav"));
const accountMenu = /** @type {HTMLElement} */ (document.getElementById("account-menu"));

let signedIn = false;
let generation = 0;
/** @type {() => void} */
let stopPage = () => {};

/** "#/jobs/job_x?status=failed" → page "job", argument "job_x"; "#/jobs?status=failed" → "jobs", "status=failed". */
function parseRoute() {
  const [path = "", query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [name = "", id = ""] = path.split("/");
  if (name === "jobs" && id) return { name: "job", argument: decodeURIComponent(id) };
  return { name, argument: query };
}

async function showPage() {
  stopPage();
  stopPage = () => {};
  const current = ++generation;
  const { name } = parseRoute();
  const page = PAGES[name];
  if (!page) {
    location.replace(DEFAULT_ROUTE);
    return;
  }
  for (const link of nav.querySelectorAll("a")) {
    const target = link.getAttribute("href")?.slice(2);
    if (target === name || (name === "job" && target === "jobs")) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const view = h("div");
  main.replaceChildren(view);
  const stop = await page(view, parseRoute().argument).catch((error) => {
    view.append(errorBox(error));
  });
  if (current !== generation) {
    stop?.();
    return;
  }
  stopPage = stop ?? (() => {});
  const heading = view.querySelector("h1");
  heading?.setAttribute("tabindex", "-1");
  heading?.focus();
}

/** @param {{ email: string, workspace: { name: string }, csrf_token: string }} session */
function enterDashboard(session) {
  signedIn = true;
  useCsrfToken(session.csrf_token);
  nav.hidden = false;
  accountMenu.hidden = false;
  const label = document.getElementById("signed-in-as");
  if (label) label.textContent = `${session.email} · ${session.workspace.name}`;
  if (PAGES[parseRoute().name]) showPage();
  else location.replace(DEFAULT_ROUTE); // hashchange shows it
}

/** @param {string} [problem] */
function showSignIn(problem) {
  signedIn = false;
  stopPage();
  nav.hidden = true;
  accountMenu.hidden = true;
  renderSignIn(main, enterDashboard, problem);
}

/** Signs in with the one-time link in the address (`#/link/<token>`), opened fresh or in an open tab. */
async function redeemLink() {
  const token = location.hash.slice(LINK_PREFIX.length);
  // Out of the address bar and the history before anything else: the link works once.
  history.replaceState(null, "", `${location.pathname}${DEFAULT_ROUTE}`);
  try {
    enterDashboard(await call("POST", "/session/link", { token }));
  } catch (error) {
    showSignIn(error instanceof Error ? error.message : String(error));
  }
}

async function boot() {
  window.addEventListener("hashchange", () => {
    if (location.hash.startsWith(LINK_PREFIX)) redeemLink();
    else if (signedIn) showPage();
  });
  window.addEventListener(SIGNED_OUT_EVENT, () => {
    if (signedIn) showSignIn("Your session ended. Sign in again.");
  });
  document.getElementById("sign-out")?.addEventListener("click", async () => {
    await call("DELETE", "/session").catch(() => undefined);
    announce("Signed out.");
    showSignIn();
  });
  if (location.hash.startsWith(LINK_PREFIX)) {
    await redeemLink();
    return;
  }
  try {
    enterDashboard(await call("GET", "/session"));
  } catch {
    showSignIn();
  }
}

boot();
