// @ts-check
import { h } from "../dom.js";

const seconds = (/** @type {number} */ value) => `${value.toFixed(1)} s`;
const percent = (/** @type {number} */ fraction) => `${Math.round(fraction * 100)}%`;
/** @param {{ x: number, y: number, width: number, height: number }} box */
const where = (box) =>
  `at ${percent(box.x)}, ${percent(box.y)} of the frame, ${percent(box.width)} × ${percent(box.height)}`;
const REASONS = {
  scene: "part of the filmed scene (it moves with the picture)",
  not_in_texts: "not among the texts you gave",
};

/**
 * A titled list, or a line saying there is nothing in it.
 * @param {string} id @param {string} title @param {string} none @param {Array<Node | string>} items
 */
function list(id, title, none, items) {
  return h(
    "section",
    { "aria-labelledby": `${id}-title` },
    h("h3", { id: `${id}-title` }, title),
    items.length
      ? h("ul", { id, class: "texts" }, ...items.map((item) => h("li", {}, item)))
      : h("p", { id }, none),
  );
}

/** @param {{ text: string }} line */
const quoted = (line) => (line.text ? `“${line.text}”` : "A line that could not be read");

/**
 * What the engine did to the video: the before/after picture and the lists of the job's report.
 * @param {any} report the Job's `report`
 */
export function reportSection(report) {
  const picture = report.picture
    ? h(
        "figure",
        { class: "report-picture" },
        h("img", {
          id: "report-picture",
          src: report.picture.url,
          alt: "The frame with the most erased text: before on the left, after on the right",
        }),
        h("figcaption", {}, "The frame with the most erased text: before (left) and after (right)"),
      )
    : h("p", {}, "Nothing was erased, so there is no before/after picture.");
  return h(
    "section",
    { id: "report", "aria-labelledby": "report-title" },
    h("h2", { id: "report-title" }, "What was erased"),
    picture,
    h("p", { id: "report-share" }, `${percent(report.frames_changed_share)} of the frames were changed.`),
    list(
      "report-erased",
      "Lines erased",
      "No line was erased.",
      report.lines_erased.map(
        (/** @type {any} */ line) =>
          `${quoted(line)}, ${seconds(line.start_seconds)} to ${seconds(line.end_seconds)}, ${where(line.box)}`,
      ),
    ),
    list(
      "report-areas",
      "Areas erased",
      "No area was given.",
      report.areas_erased.map(
        (/** @type {any} */ area) =>
          `${where(area)}, ${seconds(area.start_seconds)} to ${seconds(area.end_seconds)}`,
      ),
    ),
    list(
      "report-kept",
      "Lines kept",
      "No line was kept.",
      report.lines_kept.map(
        (/** @type {any} */ line) =>
          `${quoted(line)}, ${seconds(line.start_seconds)} to ${seconds(line.end_seconds)}: ${REASONS[/** @type {keyof typeof REASONS} */ (line.reason)] ?? line.reason}`,
      ),
    ),
    list(
      "report-left",
      "Text still found after cleaning",
      "The check after cleaning found no text left.",
      report.lines_still_found.map(
        (/** @type {any} */ found) => `At ${seconds(found.at_seconds)}, ${where(found.box)}`,
      ),
    ),
  );
}
