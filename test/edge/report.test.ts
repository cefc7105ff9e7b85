import { env, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  api,
  balance,
  claim,
  createJob,
  createWorkspace,
  expectError,
  getJob,
  internal,
  postJson,
  runCron,
  uploadFixture,
} from "./helpers";

const DAY_MS = 24 * 60 * 60 * 1000;
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...new Array(60).fill(7), 0xff, 0xd9]);
const REPORT = {
  lines_erased: [
    {
      text: "SALE 50% OFF",
      start_seconds: 0.8,
      end_seconds: 2.24,
      box: { x: 0.2, y: 0.8, width: 0.6, height: 0.1 },
    },
  ],
  areas_erased: [{ x: 0.03, y: 0.04, width: 0.12, height: 0.18, start_seconds: 1, end_seconds: 2 }],
  lines_kept: [
    {
      text: "OPEN 24 HOURS",
      start_seconds: 0,
      end_seconds: 3,
      box: { x: 0.5, y: 0.4, width: 0.4, height: 0.1 },
      reason: "scene",
    },
  ],
  lines_still_found: [],
  frames_changed_share: 0.48,
};

/** Puts bytes where an internal target says, as the worker does. */
async function put(target: Response, bytes: Uint8Array): Promise<void> {
  const { url, headers } = await target.json<{ url: string; headers: Record<string, string> }>();
  const stored = await SELF.fetch(url, { method: "PUT", headers, body: bytes });
  expect(stored.status).toBe(200);
}

/** A job run to success by a worker that stores a result and a picture and sends `report`. */
async function reportedJob(report: unknown, picture = true) {
  const created = await createWorkspace({ plan: "growth", credits: 1000 });
  const upload = await uploadFixture(created.api_key, "clip.mp4");
  const job = await createJob(created.api_key, { upload_id: upload.id });
  expect((await claim(job.id)).status).toBe(200);
  const result = new Uint8Array(64).fill(1);
  await put(
    await internal(`/jobs/${job.id}/result-target`, { worker_id: "w1", size_bytes: result.length }),
    result,
  );
  if (picture) {
    await put(
      await internal(`/jobs/${job.id}/picture-target`, { worker_id: "w1", size_bytes: JPEG.length }),
      JPEG,
    );
  }
  const completed = await internal(`/jobs/${job.id}/complete`, {
    worker_id: "w1",
    outcome: "succeeded",
    result_size_bytes: result.length,
    report,
  });
  return { ...created, job, completed };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the job report", () => {
  it("a succeeded job shows the worker's report and a presigned before/after picture", async () => {
    const { api_key, job, completed } = await reportedJob(REPORT);
    expect(completed.status).toBe(200);
    const shown = await getJob(api_key, job.id);
    const { picture, ...lists } = (
      shown as unknown as { report: typeof REPORT & { picture: { url: string } } }
    ).report;
    expect(lists).toEqual(REPORT);
    const response = await SELF.fetch(picture.url);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("image/jpeg");
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(JPEG);
  });

  it("without a picture the report's picture is null; a job without a report has no report field", async () => {
    const withoutPicture = await reportedJob(REPORT, false);
    expect(
      (
        (await getJob(withoutPicture.api_key, withoutPicture.job.id)) as unknown as {
          report: { picture: unknown };
        }
      ).report.picture,
    ).toBeNull();
    const withoutReport = await reportedJob(undefined, false);
    expect(withoutReport.completed.status).toBe(200);
    expect("report" in (await getJob(withoutReport.api_key, withoutReport.job.id))).toBe(false);
  });

  it("a malformed report is refused (400 naming it) and the job is not finished", async () => {
    const { api_key, job, completed } = await reportedJob({ ...REPORT, frames_changed_share: 2 });
    expect(completed.status).toBe(400);
    expect(((await completed.json()) as { error: { param: string } }).error.param).toBe(
      "report.frames_changed_share",
    );
    expect((await getJob(api_key, job.id)).status).not.toBe("succeeded");
  });

  it("a picture over 1 MB gets no upload address", async () => {
    const created = await createWorkspace({ plan: "growth", credits: 1000 });
    const upload = await uploadFixture(created.api_key, "clip.mp4");
    const job = await createJob(created.api_key, { upload_id: upload.id });
    await claim(job.id);
    const target = await internal(`/jobs/${job.id}/picture-target`, {
      worker_id: "w1",
      size_bytes: 2 * 1024 * 1024,
    });
    expect(target.status).toBe(400);
  });

  it("the picture is deleted with the result at the end of the retention period; the lists stay", async () => {
    const { api_key, job, workspace_id } = await reportedJob(REPORT);
    const key = `results/${workspace_id}/${job.id}-1-before-after.jpg`;
    expect(await env.BUCKET.head(key)).not.toBeNull();
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + 31 * DAY_MS);
    await runCron();
    vi.restoreAllMocks();
    expect(await env.BUCKET.head(key)).toBeNull();
    const shown = (await getJob(api_key, job.id)) as unknown as {
      result: unknown;
      report: Record<string, unknown>;
    };
    expect(shown.result).toBeNull();
    expect(shown.report.picture).toBeNull();
    expect(shown.report.lines_erased).toEqual(REPORT.lines_erased);
  });
});

describe("regions on job creation", () => {
  it("a region outside the frame or past the video's end is 400 invalid_parameter naming it; nothing is reserved", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const before = await balance(api_key);
    const upload = await uploadFixture(api_key, "clip.mp4");
    const area = { x: 0.1, y: 0.1, width: 0.2, height: 0.2 };
    const wide = await postJson("/v1/jobs", api_key, {
      upload_id: upload.id,
      regions: [{ ...area, x: 0.9 }],
    });
    expect((await expectError(wide, 400, "invalid_parameter")).error.param).toBe("regions.0.width");
    const late = await postJson("/v1/jobs", api_key, {
      upload_id: upload.id,
      regions: [{ ...area, end_seconds: 60 }],
    });
    expect((await expectError(late, 400, "invalid_parameter")).error.param).toBe("regions.0.end_seconds");
    expect(await balance(api_key)).toEqual(before);
    const accepted = await postJson("/v1/jobs", api_key, { upload_id: upload.id, regions: [area] });
    expect(accepted.status).toBe(201);
  });
});

/** What the test reads of a tool's structured content: a job, or an error. */
interface McpValue {
  source?: string;
  report?: { lines_kept: unknown };
  error?: { code: string; param?: string };
}

/** One MCP tool call, as a Streamable HTTP client posts it; the tool's result. */
async function mcpTool(key: string, name: string, args: Record<string, unknown>) {
  const response = await api("/mcp", {
    method: "POST",
    key,
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const line = (await response.text()).split("\n").find((text) => text.startsWith("data: ")) ?? "data: {}";
  return (
    JSON.parse(line.slice(6)) as {
      result: { isError?: boolean; content: Array<{ text: string }>; structuredContent: McpValue };
    }
  ).result;
}

describe("regions and the report on MCP", () => {
  it("create_job takes regions and names a bad one; get_job shows and summarises the report", async () => {
    const { api_key, job } = await reportedJob(REPORT);
    const shown = await mcpTool(api_key, "get_job", { job_id: job.id });
    expect(shown.structuredContent.report?.lines_kept).toEqual(REPORT.lines_kept);
    expect(shown.content[0]?.text).toContain(
      'Erased 1 line ("SALE 50% OFF") and 1 area on 48% of the frames',
    );
    expect(shown.content[0]?.text).toContain('"OPEN 24 HOURS": scene');
    const upload = await uploadFixture(api_key, "clip.mp4");
    const area = { x: 0.1, y: 0.1, width: 0.2, height: 0.2 };
    const bad = await mcpTool(api_key, "create_job", {
      upload_id: upload.id,
      regions: [{ ...area, height: 0 }],
    });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error).toMatchObject({
      code: "invalid_parameter",
      param: "regions.0.height",
    });
    const created = await mcpTool(api_key, "create_job", { upload_id: upload.id, regions: [area] });
    expect(created.isError ?? false).toBe(false);
    expect(created.structuredContent.source).toBe("mcp");
  });
});
