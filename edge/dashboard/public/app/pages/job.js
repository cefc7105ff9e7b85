// @ts-check
import { call } from "../api.js";
import { announce, duration, errorBox, h, integer, repeat, when, whileDisabled } from "../dom.js";
import { isActive, percent, stageLabel } from "../jobs-format.js";
import { reportSection } from "./report.js";

const POLL_MS = 1500;

/**
 * Plays the before and after videos together from one control bar under them: browser controls
 * drawn over the frame would hide its bottom, exactly where captions sit.
 * @param {HTMLVideoElement[]} videos
 */
function sharedControls(videos) {
  const play = h("button", { id: "compare-play", type: "button" }, "Play both");
  const seek = h("input", {
    id: "compare-seek",
    type: "range",
    min: "0",
    max: "1000",
    value: "0",
    "aria-label": "Position in both videos",
  });
  const [lead] = videos;
  play.addEventListener("click", () => {
    if (lead?.paused) for (const video of videos) video.play().catch(() => undefined);
    else for (const video of videos) video.pause();
  });
  lead?.addEventListener("play", () => {
    play.textContent = "Pause both";
  });
  lead?.addEventListener("pause", () => {
    play.textContent = "Play both";
  });
  lead?.addEventListener("timeupdate", () => {
    if (lead.duration) seek.value = String(Math.round((lead.currentTime / lead.duration) * 1000));
  });
  seek.addEventListener("input", () => {
    for (const video of videos)
      if (video.duration) video.currentTime = (Number(seek.value) / 1000) * video.duration;
  });
  return h("p", { class: "compare-controls" }, play, " ", seek);
}

/**
 * Original and cleaned side by side (stacked on narrow screens), the frame unobstructed, one
 * control bar for both, and the download.
 * @param {any} job with original_url and result
 */
function beforeAfter(job) {
  /** @type {HTMLVideoElement[]} */
  const videos = [];
  const player = (
    /** @type {string} */ id,
    /** @type {string} */ label,
    /** @type {string | null} */ src,
  ) => {
    let shown;
    if (src) {
      const video = /** @type {HTMLVideoElement} */ (
        // One sound track at a time: the original plays muted beside the cleaned one.
        h("video", {
          id,
          src,
          preload: "metadata",
          playsinline: true,
          muted: id === "before-video",
          "aria-label": label,
        })
      );
      videos.push(video);
      shown = video;
    } else shown = h("p", {}, "The original is no longer available.");
    return h("figure", {}, shown, h("figcaption", {}, label));
  };
  const pair = h(
    "div",
    { class: "before-after" },
    player("before-video", "Before (original)", job.original_url),
    player("after-video", "After (cleaned)", job.result.url),
  );
  return h(
    "section",
    { "aria-labelledby": "result-title" },
    h("h2", { id: "result-title" }, "Before and after"),
    pair,
    sharedControls(videos),
    h(
      "p",
      {},
      h(
        "a",
        { id: "download", class: "button", href: job.result.url, download: "" },
        "Download the cleaned MP4",
      ),
      ` (${integer(Math.round((job.result.size_bytes ?? 0) / 1024))} KB; the address is valid until ${when(job.result.expires_at)})`,
    ),
  );
}

/** What the owner asked to erase: the exact texts, or every caption and overlay. @param {string[] | null | undefined} texts */
function requestedTexts(texts) {
  if (!texts?.length) return "Every caption and overlay (read automatically)";
  return h("ul", { id: "job-texts", class: "texts" }, ...texts.map((text) => h("li", {}, text)));
}

/**
 * One job: live status while it runs, then the before/after player and the download, or the error.
 * @param {HTMLElement} view
 * @param {string} jobId
 */
export async function renderJob(view, jobId) {
  const title = h("h1", {}, "Job");
  const summary = h("dl", { class: "facts" });
  const bar = h("progress", { id: "job-progress", max: "100", value: "0" });
  const barLabel = h("span", { id: "job-progress-label" });
  const live = h("p", {}, h("label", { for: "job-progress" }, "Progress "), bar, " ", barLabel);
  const cancel = h("button", { type: "button", class: "danger" }, "Cancel job");
  const outcome = h("div");
  view.append(h("p", {}, h("a", { href: "#/jobs" }, "← All jobs")), title, summary, live, cancel, outcome);

  /** @param {any} job */
  const show = (job) => {
    title.textContent = job.input.filename;
    summary.replaceChildren(
      ...[
        ["Status", h("span", { id: "job-status", class: `status status-${job.status}` }, job.status)],
        ["Stage", stageLabel(job.stage)],
        ["Length", duration(job.input.duration_seconds)],
        ["To erase", requestedTexts(job.texts)],
        ["Credits", `${integer(job.credits)}${job.credits_refunded ? " (refunded)" : ""}`],
        ["Created", when(job.created_at)],
        ["Finished", when(job.finished_at)],
      ].flatMap(([term, detail]) => [h("dt", {}, term), h("dd", {}, detail)]),
    );
    bar.value = Math.round(job.progress * 100);
    barLabel.textContent = percent(job.progress);
    cancel.hidden = !isActive(job);
    live.hidden = !isActive(job);
  };

  cancel.addEventListener("click", () =>
    whileDisabled(
      cancel,
      async () => {
        show(await call("POST", `/jobs/${jobId}/cancel`));
        announce("Job canceled; its credits are back.");
      },
      (error) => outcome.replaceChildren(errorBox(error)),
    ),
  );

  let lastStatus = "";
  return repeat(POLL_MS, async () => {
    let job;
    try {
      job = await call("GET", `/jobs/${jobId}`);
    } catch (error) {
      outcome.replaceChildren(errorBox(error));
      return false;
    }
    show(job);
    if (job.status !== lastStatus && lastStatus) announce(`Job ${job.status}.`);
    lastStatus = job.status;
    if (isActive(job)) return true;
    if (job.status === "succeeded" && job.result)
      outcome.replaceChildren(beforeAfter(job), ...(job.report ? [reportSection(job.report)] : []));
    else if (job.error)
      outcome.replaceChildren(
        h("p", { class: "error", role: "alert" }, `${job.error.code}: ${job.error.message}`),
      );
    return false;
  });
}
