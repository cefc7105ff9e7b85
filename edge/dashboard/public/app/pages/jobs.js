// @ts-check
import { call } from "../api.js";
import { announce, dataTable, errorBox, h, integer, repeat, when, whileDisabled } from "../dom.js";
import { isActive, percent, STATUSES, stageLabel } from "../jobs-format.js";

const POLL_MS = 2000;

/**
 * One row's cells, updated in place on every poll so focus and screen readers keep their place.
 * @param {any} job
 */
function jobRow(job) {
  const status = h("td", { "data-label": "Status" });
  const stage = h("td", { "data-label": "Stage" });
  const bar = h("progress", { max: "100", "aria-label": `Progress of ${job.input.filename}` });
  const progress = h("td", { "data-label": "Progress" }, bar, " ", h("span"));
  const cancel = h(
    "button",
    { type: "button", class: "small", "aria-label": `Cancel ${job.input.filename}` },
    "Cancel",
  );
  const row = h(
    "tr",
    { "data-job": job.id },
    h("th", { scope: "row" }, h("a", { href: `#/jobs/${job.id}` }, job.input.filename)),
    status,
    stage,
    progress,
    h("td", { "data-label": "Credits" }, integer(job.credits)),
    h("td", { "data-label": "Created" }, when(job.created_at)),
    h("td", {}, cancel),
  );
  /** @param {any} latest */
  const update = (latest) => {
    status.textContent = latest.status;
    status.className = `status status-${latest.status}`;
    stage.textContent = stageLabel(latest.stage);
    bar.value = Math.round(latest.progress * 100);
    /** @type {HTMLElement} */ (progress.lastElementChild).textContent = percent(latest.progress);
    cancel.hidden = !isActive(latest);
  };
  cancel.addEventListener("click", () =>
    whileDisabled(
      cancel,
      async () => {
        update(await call("POST", `/jobs/${job.id}/cancel`));
        announce(`Canceled ${job.input.filename}; its credits are back.`);
      },
      (error) => row.after(h("tr", {}, h("td", { colspan: "7" }, errorBox(error)))),
    ),
  );
  update(job);
  return { row, update };
}

/** Jobs shown at first and added by each "Show older jobs"; `per_page` in the address overrides it. */
const PER_PAGE = 50;
/** The API's largest page. */
const MAX_LIMIT = 100;

/**
 * The newest `wanted` jobs (under `status` when given), a page of the API at a time.
 * @param {number} wanted
 * @param {string} status
 * @returns {Promise<{ jobs: any[], more: boolean }>}
 */
async function newestJobs(wanted, status) {
  /** @type {any[]} */
  const jobs = [];
  let more = true;
  while (more && jobs.length < wanted) {
    const after = jobs.at(-1)?.id;
    const query = new URLSearchParams({ limit: String(Math.min(MAX_LIMIT, wanted - jobs.length)) });
    if (status) query.set("status", status);
    if (after) query.set("starting_after", after);
    const page = await call("GET", `/jobs?${query}`);
    jobs.push(...page.data);
    more = page.has_more && page.data.length > 0;
  }
  return { jobs, more };
}

/**
 * The jobs list: newest first, filter by status, live progress while the page is open, older jobs
 * on request. Every row shown is polled, so a new job pushes the others down without a gap.
 * @param {HTMLElement} view
 * @param {string} query e.g. "status=failed"
 */
export async function renderJobs(view, query) {
  const params = new URLSearchParams(query);
  const status = params.get("status") ?? "";
  const perPage = Math.min(
    MAX_LIMIT,
    Math.max(1, Number.parseInt(params.get("per_page") ?? "", 10) || PER_PAGE),
  );
  let wanted = perPage;
  const filter = h(
    "select",
    { id: "status-filter" },
    h("option", { value: "" }, "All"),
    ...STATUSES.map((value) => h("option", { value, selected: value === status }, value)),
  );
  filter.addEventListener("change", () => {
    location.hash = filter.value ? `#/jobs?status=${filter.value}` : "#/jobs";
  });
  const body = h("tbody");
  const empty = h(
    "p",
    { hidden: true },
    status ? `No ${status} jobs.` : "No jobs yet. ",
    h("a", { href: "#/clean" }, "Clean a video"),
  );
  const problems = h("div");
  const older = h("button", { type: "button", hidden: true }, "Show older jobs");
  /** @type {Map<string, ReturnType<typeof jobRow>>} */
  const rows = new Map();
  view.append(
    h("h1", {}, "Jobs"),
    h("p", { class: "field inline" }, h("label", { for: "status-filter" }, "Status"), filter),
    problems,
    dataTable(
      {
        caption: "Your jobs, newest first",
        hiddenCaption: true,
        columns: ["File", "Status", "Stage", "Progress", "Credits", "Created"],
        actions: true,
      },
      body,
    ),
    empty,
    older,
  );
  const poll = async () => {
    try {
      const { jobs, more } = await newestJobs(wanted, status);
      problems.replaceChildren();
      /** @type {HTMLElement[]} */
      const ordered = [];
      for (const job of jobs) {
        const known = rows.get(job.id) ?? jobRow(job);
        rows.set(job.id, known);
        known.update(job);
        ordered.push(known.row);
      }
      // Rows keep their elements (and focus); only their order is refreshed.
      ordered.forEach((row, index) => {
        if (body.children[index] !== row) body.insertBefore(row, body.children[index] ?? null);
      });
      // Jobs that left this filter (and messages below them) go.
      while (body.children.length > ordered.length) body.lastElementChild?.remove();
      empty.hidden = jobs.length > 0;
      older.hidden = !more;
    } catch (error) {
      problems.replaceChildren(errorBox(error));
    }
  };
  // Polls run one after another, the timer's and the button's alike.
  let polled = Promise.resolve();
  const refresh = () => {
    polled = polled.then(poll);
    return polled;
  };
  older.addEventListener("click", async () => {
    wanted += perPage;
    older.disabled = true;
    await refresh();
    older.disabled = false;
    announce(`Showing ${body.children.length} jobs.`);
  });
  return repeat(POLL_MS, refresh);
}
