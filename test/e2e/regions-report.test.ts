import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rgbFrames } from "../../bench/raw-frames";
import { verifyWebhook } from "../../edge/webhooks/signature";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { CLIP, isMagenta, LOGO, LOGO_REGION, makeRegionsClip } from "../fixtures/regions-clip";
import { editDistance } from "../helpers/edit-distance";
import { type CliWorkspace, cliWorkspace, npmRun, type RunningStack, startStack } from "../helpers/stack";

const PORT = 18877;
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-regions-"));
let stack: RunningStack;
let files: FileServer;
let workspace: CliWorkspace;

interface Line {
  text: string;
  start_seconds: number;
  end_seconds: number;
  box: { x: number; y: number; width: number; height: number };
}
interface Report {
  lines_erased: Line[];
  areas_erased: unknown[];
  lines_kept: Array<Line & { reason: string }>;
  lines_still_found: unknown[];
  frames_changed_share: number;
  picture: { url: string; expires_at: string } | null;
}
interface Job {
  id: string;
  status: string;
  credits: number;
  result: { url: string } | null;
  report?: Report;
  error: unknown;
}

async function call(method: string, route: string, body?: unknown) {
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${workspace.api_key}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function finishedJob(id: string): Promise<Job> {
  // Bounded: the stack's CPU worker cleans the 3 s clip well within this.
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    const job = (await call("GET", `/v1/jobs/${id}`)).body as unknown as Job;
    if (["succeeded", "failed", "canceled"].includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`job ${id} did not finish`);
}

const normalise = (text: string) => text.toUpperCase().replace(/[^A-Z0-9%]/g, "");
const clip = () => path.join(dir, "ad.mp4");

beforeAll(async () => {
  await makeRegionsClip(clip());
  files = await startFileServer(dir);
  stack = await startStack(PORT);
  workspace = await cliWorkspace(stack, "growth", 5000);
  await call("PUT", "/v1/webhook_endpoint", { url: `${files.url}/hook/ok/regions` });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("regions and the report through npm start", () => {
  let job: Job;

  beforeAll(async () => {
    const created = await call("POST", "/v1/jobs", {
      video_url: `${files.url}/files/ad.mp4`,
      regions: [LOGO_REGION],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const plain = (await call("GET", `/v1/estimate?duration_seconds=${CLIP.seconds}`)).body;
    // The price does not change with regions.
    expect(created.body.credits).toBe(plain.credits);
    job = await finishedJob(created.body.id as string);
  }, 200_000);

  it("the logo under the region is gone; the rest of the picture is the input within the encoder's noise", async () => {
    expect(job.status, JSON.stringify(job.error)).toBe("succeeded");
    const cleaned = path.join(dir, "cleaned.mp4");
    writeFileSync(cleaned, new Uint8Array(await (await fetch(job.result?.url as string)).arrayBuffer()));
    const size = { width: CLIP.width, height: CLIP.height };
    const outputs = rgbFrames(cleaned, size);
    // Untouched by anything the job erased: above the caption's band, right of the logo's area.
    const untouched = (x: number, y: number) => y < CLIP.height - 100 && x > LOGO.x + LOGO.width + 24;
    let index = 0;
    for await (const before of rgbFrames(clip(), size)) {
      const after = (await outputs.next()).value as Uint8Array;
      const seconds = index++ / CLIP.fps;
      if (seconds < LOGO.from + 0.04 || seconds > LOGO.to - 0.04) continue;
      let magenta = 0;
      let logoChanged = 0;
      for (let y = LOGO.y; y < LOGO.y + LOGO.height; y++) {
        for (let x = LOGO.x; x < LOGO.x + LOGO.width; x++) {
          const i = (y * CLIP.width + x) * 3;
          if (isMagenta(after, i)) magenta++;
          if (Math.abs((before[i] as number) - (after[i] as number)) > 40) logoChanged++;
        }
      }
      expect(magenta, `frame ${index - 1}`).toBe(0);
      expect(logoChanged, `frame ${index - 1}`).toBeGreaterThan(LOGO.width * LOGO.height * 0.8);
      let difference = 0;
      let samples = 0;
      for (let y = 0; y < CLIP.height; y += 2) {
        for (let x = 0; x < CLIP.width; x += 2) {
          if (!untouched(x, y)) continue;
          const i = (y * CLIP.width + x) * 3;
          difference += Math.abs((before[i] as number) - (after[i] as number));
          samples++;
        }
      }
      expect(difference / samples, `frame ${index - 1}`).toBeLessThan(3);
    }
  });

  it("the report lists the caption with its text and times, the sign under kept, and the area", () => {
    const report = job.report as Report;
    const all = JSON.stringify(report);
    const caption = report.lines_erased.find(({ text }) => editDistance(normalise(text), "SALE50%OFF") <= 2);
    expect(caption, all).toBeDefined();
    expect(Math.abs((caption?.start_seconds ?? 0) - 0.8), all).toBeLessThan(0.2);
    expect(Math.abs((caption?.end_seconds ?? 0) - 2.24), all).toBeLessThan(0.25);
    const sign = report.lines_kept.find(({ text }) => editDistance(normalise(text), "OPEN24HOURS") <= 2);
    expect(sign, all).toMatchObject({ reason: "scene" });
    expect(report.areas_erased).toEqual([LOGO_REGION]);
    expect(report.frames_changed_share).toBeGreaterThan(0.4);
    expect(report.frames_changed_share).toBeLessThan(0.56);
  });

  it("the before/after picture is a small JPEG behind a presigned URL", async () => {
    const url = (job.report as Report).picture?.url ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1/);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(bytes.length).toBeLessThan(1024 * 1024);
    // The same address with another signature is refused: it is presigned like the result.
    const forged = url.replace(/signature=([0-9a-f])/, (_, c) => `signature=${c === "0" ? "1" : "0"}`);
    expect(forged).not.toBe(url);
    expect((await fetch(forged)).status).toBe(403);
  });

  it("the job.succeeded webhook carries the report", async () => {
    const deadline = Date.now() + 60_000;
    let succeeded: { body: string; headers: Record<string, string> } | undefined;
    while (!succeeded && Date.now() < deadline) {
      const log = (await (await fetch(`${files.url}/hook-log/regions`)).json()) as Array<{
        body: string;
        headers: Record<string, string>;
      }>;
      succeeded = log.find((entry) => JSON.parse(entry.body).type === "job.succeeded");
      if (!succeeded) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(succeeded).toBeDefined();
    await verifyWebhook({
      payload: succeeded?.body as string,
      header: succeeded?.headers["service-signature"],
      secret: workspace.signing_secret,
    });
    const event = JSON.parse(succeeded?.body as string);
    expect(event.data.object.id).toBe(job.id);
    const { picture: _sent, ...lists } = event.data.object.report as Report;
    const { picture: _got, ...expected } = job.report as Report;
    expect(lists).toEqual(expected);
    expect(_sent?.url).toMatch(/^http/);
  });
});

describe("bad regions", () => {
  const bad: Array<[string, unknown, string]> = [
    ["outside the frame", [{ x: 0.9, y: 0.1, width: 0.2, height: 0.1 }], "regions.0.width"],
    ["a negative corner", [{ x: -0.1, y: 0.1, width: 0.2, height: 0.1 }], "regions.0.x"],
    ["empty", [{ x: 0.1, y: 0.1, width: 0.2, height: 0 }], "regions.0.height"],
    [
      "ending before it starts",
      [{ x: 0.1, y: 0.1, width: 0.2, height: 0.1, start_seconds: 2, end_seconds: 1 }],
      "regions.0.end_seconds",
    ],
    ["past the video's end", [LOGO_REGION, { ...LOGO_REGION, end_seconds: 9 }], "regions.1.end_seconds"],
    [
      "starting after the video's end",
      [{ ...LOGO_REGION, start_seconds: 5, end_seconds: undefined }],
      "regions.0.start_seconds",
    ],
    ["more than 20", Array.from({ length: 21 }, () => LOGO_REGION), "regions"],
    ["an unknown field", [{ ...LOGO_REGION, colour: "red" }], "regions.0.colour"],
  ];
  for (const [name, regions, param] of bad) {
    it(`${name}: 400 invalid_parameter naming ${param}, and no credit moves`, async () => {
      const before = (await call("GET", "/v1/account")).body.credits as { total: number };
      const answer = await call("POST", "/v1/jobs", { video_url: `${files.url}/files/ad.mp4`, regions });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        type: "invalid_request_error",
        code: "invalid_parameter",
        param,
        message: expect.stringContaining(param.split(".").at(-1) as string),
        request_id: expect.stringMatching(/^req_/),
      });
      const after = (await call("GET", "/v1/account")).body.credits as { total: number };
      expect(after.total).toBe(before.total);
    });
  }
});

describe("adclean with regions", () => {
  it("clean --region --picture prints the report's summary and saves the picture", async () => {
    const out = path.join(dir, "cli-clean.mp4");
    const picture = path.join(dir, "cli-before-after.jpg");
    const region = [LOGO_REGION.x, LOGO_REGION.y, LOGO_REGION.width, LOGO_REGION.height, 1, 2.04].join(",");
    const run = await npmRun(
      "adclean",
      ["clean", clip(), "-o", out, "--region", region, "--picture", picture],
      {
        ADCLEAN_API_KEY: workspace.api_key,
        ADCLEAN_BASE_URL: stack.baseUrl,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /Erased \d+ lines? \(.*SALE.*\) and 1 area on \d+% of the frames; kept 1 line on purpose \(.*: scene\)/,
    );
    expect(run.stdout).toContain(`before/after picture: ${picture}`);
    expect(existsSync(out)).toBe(true);
    expect([...readFileSync(picture).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const bad = await npmRun("adclean", ["clean", clip(), "--region", "0.1,0.1,0.5", "--json"], {
      ADCLEAN_API_KEY: workspace.api_key,
      ADCLEAN_BASE_URL: stack.baseUrl,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--region takes x,y,width,height");
  }, 200_000);
});
