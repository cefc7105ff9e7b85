import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SizedRect } from "../../gpu-worker/engine/geometry";
import {
  cudaProviderInstalled,
  findModel,
  loadModelBytes,
  ModelFileError,
  openModels,
  readModelManifest,
  resolveModelPath,
} from "../../gpu-worker/engine/ocr/model-loader";
import {
  createOcrEngine,
  type OcrEngine,
  type RgbFrame,
  type TextBox,
} from "../../gpu-worker/engine/ocr/ocr";
import { editDistance } from "../helpers/edit-distance";

const run = promisify(execFile);

/** From Debian's fonts-dejavu-core, which ffmpeg's fontconfig dependency installs. */
const FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
const SOLID = "color=c=0x3060a0";
const BUSY = "testsrc2";
const BLACK = "color=c=black";

interface Caption {
  text: string;
  size: number;
  /** drawtext position expressions, e.g. "(w-text_w)/2". */
  x: string;
  y: string;
}

const SALE: Caption = { text: "SALE 50% OFF TODAY", size: 64, x: "(w-text_w)/2", y: "h-text_h-80" };
const HEADLINE: Caption = { text: "NEW COLLECTION", size: 56, x: "80", y: "90" };
const FOOTER: Caption = { text: "FREE SHIPPING", size: 48, x: "w-text_w-100", y: "h-text_h-120" };
const PORTRAIT_SALE: Caption = { ...SALE, size: 72, y: "h-text_h-320" };

function drawtext(caption: Caption, border: number): string {
  const options = [
    `fontfile=${FONT_FILE}`,
    `text='${caption.text}'`,
    "expansion=none",
    `fontsize=${caption.size}`,
    "fontcolor=white",
    `borderw=${border}`,
    "bordercolor=black",
    `x=${caption.x}`,
    `y=${caption.y}`,
  ];
  return `drawtext=${options.join(":")}`;
}

/** One frame of a lavfi source with the captions drawn on, as raw RGB24. */
async function renderFrame(
  width: number,
  height: number,
  background: string,
  captions: Caption[],
  border = 4,
): Promise<RgbFrame> {
  const source = `${background}${background.includes("=") ? ":" : "="}size=${width}x${height}`;
  const filter =
    captions.length > 0 ? captions.map((caption) => drawtext(caption, border)).join(",") : "null";
  const { stdout } = await run(
    "ffmpeg",
    ["-v", "error", "-f", "lavfi", "-i", source, "-vf", filter, "-frames:v", "1"].concat([
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-",
    ]),
    { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 },
  );
  return { width, height, data: new Uint8Array(stdout) };
}

/** Where drawtext puts a caption: the bright pixels of the same caption drawn alone on black. */
async function captionRect(width: number, height: number, caption: Caption): Promise<SizedRect> {
  const frame = await renderFrame(width, height, BLACK, [caption], 0);
  let [left, top, right, bottom] = [width, height, -1, -1];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * 3;
      if (Math.max(frame.data[offset] ?? 0, frame.data[offset + 1] ?? 0, frame.data[offset + 2] ?? 0) < 96)
        continue;
      [left, top, right, bottom] = [
        Math.min(left, x),
        Math.min(top, y),
        Math.max(right, x),
        Math.max(bottom, y),
      ];
    }
  }
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

function overlapArea(a: SizedRect, b: SizedRect): number {
  const overlapWidth = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const overlapHeight = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  return overlapWidth * overlapHeight;
}

function iou(a: SizedRect, b: SizedRect): number {
  const overlap = overlapArea(a, b);
  return overlap / (a.width * a.height + b.width * b.height - overlap);
}

function normalise(text: string): string {
  return text.toUpperCase().replace(/\s+/g, "");
}

/** Read as the caption: the same letters ignoring case and spaces, give or take 2 edits. */
function expectReads(text: string | undefined, caption: Caption): void {
  const [read, expected] = [normalise(text ?? ""), normalise(caption.text)];
  expect(editDistance(read, expected), `read "${text}" for "${caption.text}"`).toBeLessThanOrEqual(2);
}

/**
 * One box covers the caption (IoU at least 0.5), and the boxes lying mostly inside it read as the caption:
 * on a busy background the detector may cut a line at a wide word gap.
 */
async function expectCaptionFound(engine: OcrEngine, frame: RgbFrame, boxes: TextBox[], caption: Caption) {
  const expected = await captionRect(frame.width, frame.height, caption);
  const bestIou = Math.max(0, ...boxes.map((box) => iou(box.box, expected)));
  expect(bestIou, `IoU of ${caption.text} at ${JSON.stringify(expected)}`).toBeGreaterThanOrEqual(0.5);
  const inside = boxes.filter(
    (box) => overlapArea(box.box, expected) >= 0.5 * box.box.width * box.box.height,
  );
  const lines = await engine.recognize(frame, inside);
  expectReads(lines.map((line) => line.text).join(" "), caption);
}

let workDir: string;
let engine: OcrEngine;

beforeAll(async () => {
  if (!existsSync(FONT_FILE)) throw new Error(`${FONT_FILE} is missing: install Debian's fonts-dejavu-core`);
  workDir = await mkdtemp(path.join(tmpdir(), "ocr-test-"));
  // Batches as on CUDA, so the batched paths run here too.
  engine = await createOcrEngine({ detectBatchSize: 4, recognizeBatchSize: 8 });
});

afterAll(async () => {
  await engine?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("model loader", () => {
  it("finds every models.json file in its npm package with the listed sha256", async () => {
    const manifest = await readModelManifest();
    expect(manifest.map((entry) => entry.name)).toEqual(["ppocr-v4-det", "ppocr-v4-rec", "ppocr-keys-v1"]);
    for (const entry of manifest) {
      expect(resolveModelPath(entry)).toContain(path.join("node_modules", entry.package, entry.path));
      await expect(loadModelBytes(entry)).resolves.toBeInstanceOf(Uint8Array);
    }
  });

  it("refuses a file whose sha256 does not match", async () => {
    const entry = findModel(await readModelManifest(), "ppocr-v4-det");
    const tampered = path.join(workDir, "tampered-det.onnx");
    await copyFile(resolveModelPath(entry), tampered);
    const bytes = await readFile(tampered);
    bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 0xff;
    await writeFile(tampered, bytes);

    await expect(loadModelBytes(entry, tampered)).rejects.toThrow(/sha256 .* refusing to load it/);
    await expect(
      openModels([entry], { provider: "cpu", resolvePath: () => tampered }),
    ).rejects.toBeInstanceOf(ModelFileError);
    await expect(openModels([{ ...entry, sha256: "0".repeat(64) }], { provider: "cpu" })).rejects.toThrow(
      /expects 0{64}/,
    );
  });

  it("refuses a model whose tensors are not the listed ones", async () => {
    const entry = findModel(await readModelManifest(), "ppocr-v4-det");
    const renamed = { ...entry, outputs: [{ name: "probabilities", type: "float32", shape: [] }] };
    await expect(openModels([renamed], { provider: "cpu" })).rejects.toThrow(
      /model tensors are x,sigmoid_0.tmp_0/,
    );
  });

  it("refuses a package version other than the listed one", async () => {
    const entry = findModel(await readModelManifest(), "ppocr-v4-rec");
    expect(() => resolveModelPath({ ...entry, version: "0.0.1" })).toThrow(
      /is installed, models\/models.json lists/,
    );
  });

  it("reports the execution provider it picked", () => {
    expect(["cuda", "cpu"]).toContain(engine.provider);
    if (engine.provider === "cpu") expect(engine.cpuReason).toBeTruthy();
    if (!cudaProviderInstalled())
      expect(engine.cpuReason).toMatch(/CUDA provider libraries are not installed/);
  });
});

describe("detect and recognize", () => {
  it("finds and reads a bordered caption near the bottom of a 1280x720 frame", async () => {
    const frame = await renderFrame(1280, 720, SOLID, [SALE]);
    const [boxes = []] = await engine.detect([frame]);
    expect(boxes).toHaveLength(1);
    await expectCaptionFound(engine, frame, boxes, SALE);
  });

  it("finds and reads the caption on a busy background", async () => {
    const frame = await renderFrame(1280, 720, BUSY, [SALE]);
    const [boxes = []] = await engine.detect([frame]);
    await expectCaptionFound(engine, frame, boxes, SALE);
  });

  it("gives one box per line for two lines at different places", async () => {
    const frame = await renderFrame(1280, 720, SOLID, [HEADLINE, FOOTER]);
    const [boxes = []] = await engine.detect([frame]);
    expect(boxes).toHaveLength(2);
    await expectCaptionFound(engine, frame, boxes, HEADLINE);
    await expectCaptionFound(engine, frame, boxes, FOOTER);
  });

  it("warms up on blank frames, then finds and reads as before", async () => {
    await engine.warmUp();
    const frame = await renderFrame(1280, 720, SOLID, [SALE]);
    const [boxes = []] = await engine.detect([frame]);
    expect(boxes).toHaveLength(1);
    await expectCaptionFound(engine, frame, boxes, SALE);
  });

  it("gives no box for a frame without text", async () => {
    const frame = await renderFrame(1280, 720, SOLID, []);
    expect(await engine.detect([frame])).toEqual([[]]);
  });

  it("detects a batch of 4 frames as 4 single detects do", async () => {
    const frames = [
      await renderFrame(1280, 720, SOLID, [SALE]),
      await renderFrame(1280, 720, SOLID, [HEADLINE, FOOTER]),
      await renderFrame(1280, 720, SOLID, []),
      await renderFrame(1280, 720, BUSY, [FOOTER]),
    ];
    const batched = await engine.detect(frames);
    const single: TextBox[][] = [];
    for (const frame of frames) single.push(...(await engine.detect([frame])));
    expect(batched.map((boxes) => boxes.length)).toEqual(single.map((boxes) => boxes.length));
    batched.forEach((boxes, frameIndex) => {
      boxes.forEach((box, boxIndex) => {
        const alone = single[frameIndex]?.[boxIndex];
        expect(iou(box.box, alone?.box ?? { x: 0, y: 0, width: 0, height: 0 })).toBeGreaterThan(0.98);
        expect(box.score).toBeCloseTo(alone?.score ?? 0, 2);
      });
    });
  });

  it("finds and reads a caption on a 1080x1920 portrait frame", async () => {
    const frame = await renderFrame(1080, 1920, SOLID, [PORTRAIT_SALE]);
    const [boxes = []] = await engine.detect([frame]);
    expect(boxes).toHaveLength(1);
    await expectCaptionFound(engine, frame, boxes, PORTRAIT_SALE);
  });

  it("reads the text of frames of different sizes in one call", async () => {
    const frames = [
      await renderFrame(1280, 720, SOLID, [HEADLINE, FOOTER]),
      await renderFrame(1080, 1920, SOLID, [PORTRAIT_SALE]),
      await renderFrame(1280, 720, SOLID, []),
    ];
    // As the reading pass calls it: every frame's boxes read in one batch.
    const boxesPerFrame = await engine.detect(frames);
    expect(boxesPerFrame.map((boxes) => boxes.length)).toEqual([2, 1, 0]);
    const items = boxesPerFrame.flatMap((boxes, index) =>
      boxes.map((box) => ({ frame: frames[index] as RgbFrame, box })),
    );
    const lines = await engine.recognizeBoxes(items);
    const [landscape, portrait] = [lines.slice(0, 2), lines.slice(2, 3)];
    expect(landscape).toHaveLength(2);
    expectReads(landscape[0]?.text, HEADLINE);
    expectReads(landscape[1]?.text, FOOTER);
    expect(portrait).toHaveLength(1);
    expectReads(portrait[0]?.text, PORTRAIT_SALE);
    expect(lines).toHaveLength(3);
    for (const line of [...landscape, ...portrait]) expect(line.confidence).toBeGreaterThan(0.8);
  });
});
