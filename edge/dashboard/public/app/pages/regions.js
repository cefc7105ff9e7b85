// @ts-check
import { h } from "../dom.js";

/** The API's limit on areas per job. */
const MAX_AREAS = 20;
/** A drag smaller than this (share of the frame, either side) is a click, not an area. */
const MIN_SIDE = 0.01;

/**
 * @typedef {{ x: number, y: number, width: number, height: number, start?: number, end?: number }} Area
 * Fractions of the frame; seconds of the video.
 */

const clamp = (/** @type {number} */ value) => Math.min(1, Math.max(0, value));
const round = (/** @type {number} */ value) => Math.round(value * 10_000) / 10_000;
const percentOf = (/** @type {number} */ fraction) => String(Math.round(fraction * 1000) / 10);

/**
 * Areas to erase whole (the job's `regions`), drawn by dragging on a frame of the chosen video;
 * each area's box and span are also fields, for the keyboard and for exact values.
 */
export function regionPicker() {
  /** @type {Area[]} */
  let areas = [];
  let address = "";
  const video = /** @type {HTMLVideoElement} */ (
    h("video", { id: "region-frame", muted: true, playsinline: true, preload: "auto", "aria-hidden": "true" })
  );
  const layer = h("div", {
    id: "region-layer",
    class: "region-layer",
    role: "img",
    "aria-label": "A frame of the video: drag to mark an area to erase",
  });
  const stage = h("div", { class: "region-stage" }, video, layer);
  const seek = h("input", {
    id: "region-seek",
    type: "range",
    min: "0",
    max: "1000",
    value: "0",
    "aria-label": "Which frame to draw on",
  });
  const list = h("ol", { id: "region-list", class: "region-list" });
  const section = h(
    "fieldset",
    { id: "regions", class: "field", hidden: true },
    h("legend", {}, "Areas to erase (optional)"),
    h(
      "p",
      { class: "help", id: "regions-help" },
      "Drag on the frame over a logo, sticker or watermark: each area is erased whole, without reading, together with the captions found. Up to 20; leave the start and end empty for the whole video.",
    ),
    stage,
    h("p", { class: "compare-controls" }, h("label", { for: "region-seek" }, "Frame "), seek),
    list,
  );

  /** The pointer's place on the frame, as fractions. @param {PointerEvent} event */
  const pointAt = (event) => {
    const box = layer.getBoundingClientRect();
    return {
      x: clamp((event.clientX - box.left) / box.width),
      y: clamp((event.clientY - box.top) / box.height),
    };
  };
  /** @type {{ x: number, y: number } | null} */
  let anchor = null;
  const preview = h("div", { class: "region-box drawing", hidden: true });
  /** @param {Area} area @param {HTMLElement} element */
  const place = (area, element) => {
    element.style.left = `${area.x * 100}%`;
    element.style.top = `${area.y * 100}%`;
    element.style.width = `${area.width * 100}%`;
    element.style.height = `${area.height * 100}%`;
  };
  /** The box from the anchor to the pointer. @param {PointerEvent} event @returns {Area} */
  const spanned = (event) => {
    const at = pointAt(event);
    const from = anchor ?? at;
    return {
      x: round(Math.min(from.x, at.x)),
      y: round(Math.min(from.y, at.y)),
      width: round(Math.abs(at.x - from.x)),
      height: round(Math.abs(at.y - from.y)),
    };
  };
  layer.addEventListener("pointerdown", (event) => {
    if (areas.length >= MAX_AREAS) return;
    anchor = pointAt(event);
    layer.setPointerCapture(event.pointerId);
    preview.hidden = false;
    place(spanned(event), preview);
  });
  layer.addEventListener("pointermove", (event) => {
    if (anchor) place(spanned(event), preview);
  });
  layer.addEventListener("pointerup", (event) => {
    if (!anchor) return;
    const area = spanned(event);
    anchor = null;
    preview.hidden = true;
    if (area.width < MIN_SIDE || area.height < MIN_SIDE) return;
    areas.push(area);
    render();
  });
  seek.addEventListener("input", () => {
    if (video.duration) video.currentTime = (Number(seek.value) / 1000) * video.duration;
  });

  /** The boxes over the frame, numbered like the list. */
  const drawBoxes = () => {
    const boxes = areas.map((area, index) => {
      const box = h("div", { class: "region-box" }, h("span", {}, String(index + 1)));
      place(area, box);
      return box;
    });
    layer.replaceChildren(...boxes, preview);
  };

  /** One area's fields: its box in percent of the frame, its span in seconds, and Remove. @param {Area} area @param {number} index */
  const row = (area, index) => {
    /** @param {"x" | "y" | "width" | "height"} key @param {string} label */
    const share = (key, label) => {
      const input = h("input", {
        type: "number",
        min: "0",
        max: "100",
        step: "any",
        value: percentOf(area[key]),
        "aria-label": `Area ${index + 1} ${label} (% of the frame)`,
      });
      input.addEventListener("input", () => {
        area[key] = round(clamp(Number(input.value) / 100));
        drawBoxes();
      });
      return input;
    };
    /** @param {"start" | "end"} key */
    const second = (key) => {
      const input = h("input", {
        type: "number",
        min: "0",
        step: "any",
        value: area[key] === undefined ? "" : String(area[key]),
        placeholder: key === "start" ? "0" : "end",
        "aria-label": `Area ${index + 1} ${key} (seconds)`,
      });
      input.addEventListener("input", () => {
        if (input.value === "") delete area[key];
        else area[key] = Number(input.value);
      });
      return input;
    };
    const remove = h("button", { type: "button" }, `Remove area ${index + 1}`);
    remove.addEventListener("click", () => {
      areas.splice(index, 1);
      render();
    });
    return h(
      "li",
      { class: "region-row" },
      "left ",
      share("x", "left"),
      "% top ",
      share("y", "top"),
      "% width ",
      share("width", "width"),
      "% height ",
      share("height", "height"),
      "% from ",
      second("start"),
      " s to ",
      second("end"),
      " s ",
      remove,
    );
  };

  function render() {
    drawBoxes();
    list.replaceChildren(...areas.map(row));
  }

  return {
    element: section,
    /** Shows a frame of the chosen file to draw on; forgets the areas of the one before. @param {File} file */
    load(file) {
      if (address) URL.revokeObjectURL(address);
      address = URL.createObjectURL(file);
      areas = [];
      render();
      video.src = address;
      // The first frame may be black (a fade in): show one a little in.
      video.addEventListener(
        "loadedmetadata",
        () => {
          video.currentTime = Math.min(0.5, video.duration / 2);
        },
        { once: true },
      );
      section.hidden = false;
    },
    /** The areas as the API takes them (`regions`). */
    regions() {
      return areas.map((area) => ({
        x: area.x,
        y: area.y,
        width: round(Math.min(area.width, 1 - area.x)),
        height: round(Math.min(area.height, 1 - area.y)),
        ...(area.start === undefined ? {} : { start_seconds: area.start }),
        ...(area.end === undefined ? {} : { end_seconds: area.end }),
      }));
    },
  };
}
