export { type FillFrameOptions, type FillResult, type FramePools, fillFrame, framePools } from "./fill";
export { fillRegions } from "./regions";
export { type InpaintMethod, type InpaintOptions, inpaintSpatial } from "./spatial";
export type { PreviousFill } from "./stabilise";
export { forgetTiles } from "./tiles";
export type { FillOptions, Homography, MaskedFrame, RgbFrame } from "./types";
