// @ts-check
import { ApiFailure, call, putFile } from "../api.js";
import { announce, duration, errorBox, h, integer } from "../dom.js";
import { regionPicker } from "./regions.js";

/** The types POST /uploads takes, by file extension for browsers that leave File.type empty. */
const TYPES = { mp4: "video/mp4", mov: "video/quicktime", m4v: "video/x-m4v" };

/** @param {File} file */
function contentType(file) {
  if (Object.values(TYPES).includes(file.type)) return file.type;
  const extension = /** @type {keyof typeof TYPES} */ (file.name.split(".").pop()?.toLowerCase() ?? "");
  return TYPES[extension] ?? file.type;
}

/**
 * The video's length, read by the browser from the file's metadata (nothing is sent yet).
 * @param {File} file
 * @returns {Promise<number>}
 */
function readDuration(file) {
  return new Promise((resolve, reject) => {
    const video = document.createElement("video");
    const address = URL.createObjectURL(file);
    const done = () => URL.revokeObjectURL(address);
    video.preload = "metadata";
    video.addEventListener("loadedmetadata", () => {
      done();
      Number.isFinite(video.duration)
        ? resolve(video.duration)
        : reject(new Error("The video's length is unknown."));
    });
    video.addEventListener("error", () => {
      done();
      reject(new Error("This browser cannot read that file as a video (MP4 or MOV)."));
    });
    video.src = address;
  });
}

/**
 * Clean a video: pick or drop a file, see its price, upload it with a progress bar, start the job.
 * @param {HTMLElement} view
 */
export async function renderClean(view) {
  /** @type {File | null} */
  let chosen = null;
  const account = await call("GET", "/account");
  const input = h("input", {
    id: "video-file",
    type: "file",
    accept: Object.values(TYPES).join(","),
    class: "visually-hidden",
  });
  const dropZone = h(
    "label",
    { for: "video-file", class: "drop-zone" },
    h("strong", {}, "Choose a video"),
    h("span", {}, " or drop it here (MP4 or MOV, up to 15 minutes)"),
  );
  const estimate = h("div", { id: "estimate", "aria-live": "polite" });
  const texts = h("textarea", { id: "texts", rows: "3", "aria-describedby": "texts-help" });
  const progress = h("progress", { id: "upload-progress", max: "100", value: "0" });
  const progressLabel = h("span", { id: "upload-progress-label" });
  const uploadState = h(
    "p",
    { hidden: true },
    h("label", { for: "upload-progress" }, "Upload "),
    progress,
    " ",
    progressLabel,
  );
  const areas = regionPicker();
  const problems = h("div", { id: "problems" });
  const start = h("button", { type: "submit", disabled: true }, "Start cleaning");

  /** @param {File} file */
  async function choose(file) {
    chosen = null;
    start.disabled = true;
    problems.replaceChildren();
    estimate.replaceChildren(h("p", {}, `Reading ${file.name}…`));
    try {
      const seconds = await readDuration(file);
      const price = await call("GET", `/estimate?duration_seconds=${seconds}`);
      if (price.too_long) {
        // The length, not the credits, is what stops it: said before anything is uploaded.
        estimate.replaceChildren(
          errorBox(
            `${file.name} lasts ${price.label}; the longest video we clean is ${price.max_duration_seconds / 60} minutes. Cut it shorter, then choose it again.`,
          ),
        );
        return;
      }
      const enough = price.credits <= account.credits.total;
      estimate.replaceChildren(
        h(
          "p",
          { class: enough ? "estimate" : "estimate short" },
          `${file.name}: ${duration(seconds)}, costs `,
          h("strong", { id: "estimate-credits" }, `${integer(price.credits)} credits`),
          `. You have ${integer(account.credits.total)}.`,
        ),
        ...(enough ? [] : [errorBox("Not enough credits for this video.")]),
      );
      chosen = file;
      start.disabled = !enough;
      if (enough) areas.load(file);
    } catch (error) {
      estimate.replaceChildren(errorBox(error));
    }
  }

  input.addEventListener("change", () => {
    const file = input.files?.[0];
    if (file) choose(file);
  });
  dropZone.addEventListener("dragover", (event) => {
    event.preventDefault();
    dropZone.classList.add("dragging");
  });
  dropZone.addEventListener("dragleave", () => dropZone.classList.remove("dragging"));
  dropZone.addEventListener("drop", (event) => {
    event.preventDefault();
    dropZone.classList.remove("dragging");
    const file = event.dataTransfer?.files[0];
    if (file) choose(file);
  });

  const form = h(
    "form",
    { class: "card" },
    h("p", { class: "field" }, input, dropZone),
    estimate,
    h(
      "p",
      { class: "field" },
      h("label", { for: "texts" }, "Texts to erase (optional)"),
      texts,
      h(
        "span",
        { id: "texts-help", class: "help" },
        "One per line, exactly as shown on screen. Leave empty to erase every caption and overlay.",
      ),
    ),
    areas.element,
    uploadState,
    problems,
    start,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!chosen) return;
    const file = chosen;
    start.disabled = true;
    input.disabled = true;
    problems.replaceChildren();
    uploadState.hidden = false;
    try {
      const upload = await call("POST", "/uploads", {
        filename: file.name,
        content_type: contentType(file),
        size_bytes: file.size,
      });
      await putFile(upload, file, (fraction) => {
        progress.value = Math.round(fraction * 100);
        progressLabel.textContent = `${Math.round(fraction * 100)}%`;
      });
      progressLabel.textContent = "Uploaded";
      const lines = texts.value
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      const regions = areas.regions();
      const job = await call("POST", "/jobs", {
        upload_id: upload.id,
        ...(lines.length ? { texts: lines } : {}),
        ...(regions.length ? { regions } : {}),
      });
      announce(`Job started for ${file.name}.`);
      location.hash = `#/jobs/${job.id}`;
    } catch (error) {
      problems.replaceChildren(errorBox(error));
      input.disabled = false;
      // A refusal (4xx) would only be refused again: Start waits for another file. A lost
      // connection or a server error may pass on a second try.
      const refused = error instanceof ApiFailure && error.status < 500;
      if (refused) chosen = null;
      start.disabled = refused;
    }
  });
  view.append(h("h1", {}, "Clean a video"), form);
}
