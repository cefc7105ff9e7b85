import type { SizedRect } from "../geometry";
import { loadOpenCv, type OpenCv, release } from "./opencv";
import { type Profiles, profileShift, profilesOf } from "./profile-shift";
import { ringDifference, ringPixels } from "./ring-choice";
import { fitSimilarity } from "./similarity";
import { type Homography, homography, IDENTITY, type RgbFrame } from "./types";

type Mat = InstanceType<OpenCv["Mat"]>;

const MAX_FEATURES = 100;
const MIN_INLIERS = 12;
/** RANSAC inlier threshold in pixels: LK tracks are sub-pixel, so a loose one would admit parallax. */
const RANSAC_THRESHOLD = 1;
/**
 * RANSAC's draws at most: a fit needs an inlier share of 30 % at least (enoughInliers), which 652
 * draws find with OpenCV's 99.5 % confidence. At OpenCV's default of 2000, the fits refused anyway
 * (a shot with little texture, a cut) took as long as all the rest: on real-subject 16 of 199 fits
 * had under 30 % inliers and used 684 of the 1,349 ms (322 of 1,074 at 700 draws).
 */
const RANSAC_MAX_DRAWS = 700;
const RANSAC_CONFIDENCE = 0.995;
/** Text and its halo must not attract features: they move with the text, not with the camera. */
const MASK_CLEARANCE = 4;
/**
 * Corners are looked for on the region shrunk by a whole factor to about this long side (a quarter
 * of the pixels at 720p); they are tracked at native resolution, where LK is most precise.
 */
const CORNER_LONG_SIDE = 640;
/**
 * Below this mean difference on the ring (grey levels, capped as ringDifference caps them), the
 * picture beside the text is the same in both frames where it stands: the camera stood still, and
 * the tracks followed a subject that moves on its own (a man talking behind a subtitle, a neckline
 * under a caption). Lining the frames up by them moved the still background under the text, so no
 * motion is kept where it lines the ring up better than the fit. Measured with `npm run -s clean`
 * and the bench's scoring: real-subtitles 23.40 to 24.77 dB inside the masks and its flicker 0.36 to
 * -0.30, real-subject 25.87 to 26.19 and 0.46 to 0.17, real-street 30.73 to 30.82, real-portrait
 * 27.73 to 27.76 but its worst tenth 21.08 to 20.41; the synthetic clips as they were but hook-price
 * (38.44 to 38.33). Under 0.5 levels real-subtitles gained nothing; with no bound (identity whenever
 * it lines up the ring better) real-portrait lost 0.5 dB.
 */
const STILL_RING = 1;
/** The largest shift between neighbouring frames the profile fallback looks for, in pixels. */
const MAX_PROFILE_SHIFT = 32;

/**
 * Estimates camera motion from one frame (the one being filled) to its neighbours on the unmasked
 * pixels of a region of interest around the holes: Shi-Tomasi corners, pyramidal Lucas-Kanade
 * tracking at native resolution, and a RANSAC homography (covers pans, zooms, rotations and the
 * perspective of a turning camera). The grey image and corners of the source frame are computed
 * once and reused for every neighbour; call `release` when done.
 */
export class MotionEstimator {
  private constructor(
    private readonly cv: OpenCv,
    private readonly roi: SizedRect,
    private readonly grey: Mat,
    private readonly corners: Mat,
    private readonly usable: Mat,
    /** The source frame's text mask (whole frame). */
    private readonly mask: Uint8Array,
  ) {}

  /** The source's row and column profiles, made the first time corners fail. */
  private profiles?: Profiles;
  /** The unmasked pixels beside the source's text (ringPixels), made the first time two fits compete. */
  private ring?: Int32Array;

  /** `frame` may be given as its luma over `roi` (greyRegion), to reuse one computed before. */
  static async create(
    frame: RgbFrame | GreyRegion,
    mask: Uint8Array,
    roi: SizedRect,
  ): Promise<MotionEstimator> {
    const { cv } = await loadOpenCv();
    const grey = greyMat(cv, frame, roi);
    const usable = clearOfMask(cv, mask, frame.width, roi);
    const corners = findCorners(
      cv,
      grey,
      usable,
      Math.floor(Math.max(frame.width, frame.height) / CORNER_LONG_SIDE),
    );
    return new MotionEstimator(cv, roi, grey, corners, usable, mask);
  }

  /** The homography mapping pixels of the source frame to `frame`, or undefined when it cannot be trusted. */
  track(frame: RgbFrame | GreyRegion, mask: Uint8Array): Homography | undefined {
    const target = greyMat(this.cv, frame, this.roi);
    try {
      return this.trackCorners(target, mask, frame.width) ?? this.trackProfiles(target, mask, frame.width);
    } finally {
      release(target);
    }
  }

  private trackCorners(target: Mat, mask: Uint8Array, width: number): Homography | undefined {
    const cv = this.cv;
    if (this.corners.rows < MIN_INLIERS) return undefined;
    const tracked = new cv.Mat();
    const status = new cv.Mat();
    const trackError = new cv.Mat();
    try {
      const criteria = new cv.TermCriteria(cv.TermCriteria_COUNT + cv.TermCriteria_EPS, 20, 0.03);
      cv.calcOpticalFlowPyrLK(
        this.grey,
        target,
        this.corners,
        tracked,
        status,
        trackError,
        new cv.Size(15, 15),
        3,
        criteria,
      );
      const pairs = this.keptPairs(tracked, status, mask, width);
      return pairs && this.bestFit(pairs, target, mask, width);
    } finally {
      release(tracked, status, trackError);
    }
  }

  /**
   * The homography of the tracks, or the similarity of the same tracks where that lines up the ring
   * around the text better (ring-choice.ts); either alone where only it holds.
   */
  private bestFit(
    pairs: { from: number[]; to: number[] },
    target: Mat,
    mask: Uint8Array,
    width: number,
  ): Homography | undefined {
    const general = fitHomography(this.cv, pairs.from, pairs.to);
    const similar = fitSimilarity(pairs.from, pairs.to, RANSAC_THRESHOLD);
    // Alone, the similarity must hold as large a share of the tracks as a homography must. Beside one
    // the ring judges, so a dozen tracks will do: a still background may hold few of the corners.
    this.ring ??= ringPixels(this.usable.data, this.mask, width, this.roi);
    const from = { grey: this.grey.data, roi: this.roi };
    const to = { grey: target.data, roi: this.roi };
    const difference = (motion: Homography) =>
      ringDifference(from, to, mask, width, this.ring as Int32Array, motion);
    let fitted: { motion: Homography; difference?: number } | undefined;
    if (!general) {
      fitted = similar && enoughInliers(similar.inliers, pairs.from.length / 2) ? similar : undefined;
    } else if (!similar || similar.inliers < MIN_INLIERS) {
      fitted = { motion: general };
    } else {
      const [ofSimilar, ofGeneral] = [difference(similar.motion), difference(general)];
      fitted =
        ofSimilar < ofGeneral
          ? { ...similar, difference: ofSimilar }
          : { motion: general, difference: ofGeneral };
    }
    if (!fitted) return undefined;
    const still = difference(IDENTITY);
    return still < STILL_RING && still < (fitted.difference ?? difference(fitted.motion))
      ? IDENTITY
      : fitted.motion;
  }

  /** Where corners fail (flat bars, stripes), a translation from the region's row and column profiles. */
  private trackProfiles(target: Mat, mask: Uint8Array, width: number): Homography | undefined {
    const { x, y, width: roiWidth, height: roiHeight } = this.roi;
    this.profiles ??= profilesOf({
      grey: this.grey.data,
      usable: this.usable.data,
      width: roiWidth,
      height: roiHeight,
    });
    // Means over many pixels: the target's text alone is left out, without the clearance corners need.
    const open = new Uint8Array(roiWidth * roiHeight);
    for (let row = 0; row < roiHeight; row += 1) {
      const start = (y + row) * width + x;
      for (let column = 0; column < roiWidth; column += 1)
        open[row * roiWidth + column] = mask[start + column] ? 0 : 1;
    }
    const targetProfiles = profilesOf({
      grey: target.data,
      usable: open,
      width: roiWidth,
      height: roiHeight,
    });
    const shift = profileShift(this.profiles, targetProfiles, MAX_PROFILE_SHIFT);
    // The region's own coordinates differ from the frame's by an offset a translation ignores.
    return shift && homography([1, 0, shift.dx, 0, 1, shift.dy, 0, 0, 1]);
  }

  release(): void {
    release(this.grey, this.corners, this.usable);
  }

  /** Tracks that succeeded and landed on unmasked pixels inside the region, in frame coordinates. */
  private keptPairs(tracked: Mat, status: Mat, mask: Uint8Array, width: number) {
    const { x: left, y: top, width: roiWidth, height: roiHeight } = this.roi;
    const starts = this.corners.data32F;
    const ends = tracked.data32F;
    const from: number[] = [];
    const to: number[] = [];
    for (let i = 0; i < this.corners.rows; i += 1) {
      const endX = ends[2 * i] as number;
      const endY = ends[2 * i + 1] as number;
      if (status.data[i] !== 1 || !(endX >= 0 && endY >= 0 && endX < roiWidth && endY < roiHeight)) continue;
      if (mask[(top + Math.round(endY)) * width + left + Math.round(endX)]) continue;
      from.push((starts[2 * i] as number) + left, (starts[2 * i + 1] as number) + top);
      to.push(endX + left, endY + top);
    }
    return from.length / 2 >= MIN_INLIERS ? { from, to } : undefined;
  }
}

/** Shi-Tomasi corners of `grey` where `usable`, found on both shrunk by `factor`, in `grey`'s pixels. */
function findCorners(cv: OpenCv, grey: Mat, usable: Mat, factor: number): Mat {
  const corners = new cv.Mat();
  if (factor <= 1) {
    cv.goodFeaturesToTrack(grey, corners, MAX_FEATURES, 0.01, 8, usable, 3, false, 0.04);
    return corners;
  }
  const size = new cv.Size(Math.floor(grey.cols / factor), Math.floor(grey.rows / factor));
  const smallGrey = new cv.Mat();
  const smallUsable = new cv.Mat();
  try {
    cv.resize(grey, smallGrey, size, 0, 0, cv.INTER_AREA);
    // A shrunk cell is usable only if all of its pixels were.
    cv.resize(usable, smallUsable, size, 0, 0, cv.INTER_AREA);
    cv.threshold(smallUsable, smallUsable, 254, 255, cv.THRESH_BINARY);
    cv.goodFeaturesToTrack(smallGrey, corners, MAX_FEATURES, 0.01, 8 / factor, smallUsable, 3, false, 0.04);
    const points = corners.data32F;
    for (let i = 0; i < points.length; i += 1) points[i] = (points[i] as number) * factor + (factor - 1) / 2;
    return corners;
  } finally {
    release(smallGrey, smallUsable);
  }
}

/** The homography that RANSAC fits to the pairs, when it holds (enough inliers, plausible). */
function fitHomography(cv: OpenCv, from: number[], to: number[]): Homography | undefined {
  const count = from.length / 2;
  const fromMat = cv.matFromArray(count, 1, cv.CV_32FC2, from);
  const toMat = cv.matFromArray(count, 1, cv.CV_32FC2, to);
  const inliers = new cv.Mat();
  let fitted: Mat | undefined;
  try {
    fitted = cv.findHomography(
      fromMat,
      toMat,
      cv.RANSAC,
      RANSAC_THRESHOLD,
      inliers,
      RANSAC_MAX_DRAWS,
      RANSAC_CONFIDENCE,
    );
    if (fitted.rows !== 3) return undefined;
    if (!enoughInliers(cv.countNonZero(inliers), count)) return undefined;
    const h = homography(fitted.data64F);
    return plausible(h) ? h : undefined;
  } finally {
    release(fromMat, toMat, inliers);
    fitted?.delete();
  }
}

function enoughInliers(inliers: number, pairs: number): boolean {
  return inliers >= Math.max(MIN_INLIERS, 0.3 * pairs);
}

/** Rejects degenerate fits: folds, extreme zooms, strong perspective between nearby frames. */
function plausible(h: Homography): boolean {
  const scale = h[0] * h[4] - h[1] * h[3];
  return (
    h.every(Number.isFinite) && scale > 0.5 && scale < 2 && Math.abs(h[6]) < 1e-3 && Math.abs(h[7]) < 1e-3
  );
}

/** A frame's luma over one region, computed once where two motions are measured on the frame. */
export interface GreyRegion {
  /** The whole frame's size, as RgbFrame's. */
  width: number;
  height: number;
  roi: SizedRect;
  grey: Uint8Array;
}

export function greyRegion(frame: RgbFrame, roi: SizedRect): GreyRegion {
  const grey = new Uint8Array(roi.width * roi.height);
  const data = frame.data;
  for (let y = 0; y < roi.height; y += 1) {
    let at = ((roi.y + y) * frame.width + roi.x) * 3;
    const row = y * roi.width;
    for (let x = 0; x < roi.width; x += 1, at += 3) {
      // BT.601 luma in fixed point.
      grey[row + x] =
        ((data[at] as number) * 77 + (data[at + 1] as number) * 150 + (data[at + 2] as number) * 29) >> 8;
    }
  }
  return { width: frame.width, height: frame.height, roi, grey };
}

function greyMat(cv: OpenCv, frame: RgbFrame | GreyRegion, roi: SizedRect): Mat {
  const region = "grey" in frame ? frame : greyRegion(frame, roi);
  const { x, y, width, height } = region.roi;
  if (x !== roi.x || y !== roi.y || width !== roi.width || height !== roi.height) {
    throw new RangeError("the grey region is not the region motion is measured in");
  }
  const grey = new cv.Mat(roi.height, roi.width, cv.CV_8UC1);
  grey.data.set(region.grey);
  return grey;
}

/** 255 where corners may be taken: unmasked and at least MASK_CLEARANCE pixels from the mask. */
function clearOfMask(cv: OpenCv, mask: Uint8Array, width: number, roi: SizedRect): Mat {
  const masked = new cv.Mat(roi.height, roi.width, cv.CV_8UC1);
  const out = masked.data;
  for (let y = 0; y < roi.height; y += 1) {
    const start = (roi.y + y) * width + roi.x;
    for (let x = 0; x < roi.width; x += 1) out[y * roi.width + x] = mask[start + x] ? 255 : 0;
  }
  const kernel = cv.Mat.ones(2 * MASK_CLEARANCE + 1, 2 * MASK_CLEARANCE + 1, cv.CV_8UC1);
  const usable = new cv.Mat();
  try {
    cv.dilate(masked, usable, kernel);
    cv.bitwise_not(usable, usable);
    return usable;
  } finally {
    release(masked, kernel);
  }
}
