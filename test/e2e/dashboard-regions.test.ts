import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOGO_REGION, makeRegionsClip } from "../fixtures/regions-clip";
import { launchChromium } from "../helpers/browser";
import {
  type CliWorkspace,
  cliWorkspace,
  npmRun,
  PROJECT_ROOT,
  type RunningStack,
  startStack,
} from "../helpers/stack";

/** Screenshots for people to look at (gitignored). */
const SHOTS = path.join(PROJECT_ROOT, "test-results/dashboard-regions");
const EMAIL = "designer@example.com";
const PASSWORD = "a long dashboard password";

let stack: RunningStack;
let browser: Browser;
let page: Page;
let workspace: CliWorkspace;
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-dashboard-regions-"));
const clip = path.join(dir, "logo-ad.mp4");

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const heading = () => page.getByRole("heading", { level: 1 });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  await makeRegionsClip(clip);
  stack = await startStack(18887);
  workspace = await cliWorkspace(stack, "growth", 1000);
  const owner = await npmRun(
    "admin",
    ["owner", "create", "--workspace", workspace.workspace_id, "--email", EMAIL, "--password", PASSWORD],
    { BASE_URL: stack.baseUrl },
  );
  if (owner.code !== 0) throw new Error(owner.stderr);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.setDefaultTimeout(30_000);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("drawing areas to erase in the dashboard", () => {
  it("an area drawn on a frame is erased and the job page shows the before/after picture and the lists", async () => {
    await page.goto(stack.baseUrl);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => heading().textContent()).toBe("Clean a video");

    await page.locator("#video-file").setInputFiles(clip);
    await page.locator("#estimate-credits").waitFor();
    const layer = page.locator("#region-layer");
    await layer.waitFor();
    // The frame is shown before anything is drawn on it.
    await expect
      .poll(() =>
        page
          .locator("#region-frame")
          .evaluate((video) => (video as unknown as { readyState: number }).readyState),
      )
      .toBeGreaterThanOrEqual(2);
    const box = await layer.boundingBox();
    if (!box) throw new Error("the frame has no box");
    const at = (fx: number, fy: number) => [box.x + fx * box.width, box.y + fy * box.height] as const;
    const [x0, y0] = at(LOGO_REGION.x, LOGO_REGION.y);
    const [x1, y1] = at(LOGO_REGION.x + LOGO_REGION.width, LOGO_REGION.y + LOGO_REGION.height);
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, { steps: 4 });
    await page.mouse.move(x1, y1, { steps: 4 });
    await page.mouse.up();
    await expect.poll(() => page.locator("#region-list li").count()).toBe(1);
    await page.getByLabel("Area 1 start (seconds)").fill("1");
    await page.getByLabel("Area 1 end (seconds)").fill("2.04");
    await shot("area-drawn");

    // By keyboard: a click right after a full-page screenshot can land its mouseup elsewhere
    // (headless chromium restores the scroll between the two), which is no click at all.
    await page.getByRole("button", { name: "Start cleaning" }).press("Enter");
    // The job page, or the refusal said on the form.
    await page.locator("#job-status, #problems [role=alert]").first().waitFor();
    expect(await page.locator("#problems [role=alert]").allTextContents()).toEqual([]);
    await expect
      .poll(() => page.locator("#job-status").textContent(), { timeout: 150_000, interval: 1000 })
      .toBe("succeeded");
    const picture = page.locator("#report-picture");
    await picture.waitFor();
    await expect
      .poll(() => picture.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth))
      .toBe(1280);
    expect(await page.locator("#report-erased").textContent()).toMatch(/SALE/);
    expect(await page.locator("#report-kept").textContent()).toMatch(/OPEN.*filmed scene/);
    expect(await page.locator("#report-areas li").count()).toBe(1);
    await picture.scrollIntoViewIfNeeded();
    await shot("job-report");

    // What was sent is the area drawn, to within a pixel or two of the frame.
    const jobId = page.url().split("/").pop() as string;
    const job = (await (
      await fetch(`${stack.baseUrl}/v1/jobs/${jobId}`, {
        headers: { Authorization: `Bearer ${workspace.api_key}` },
      })
    ).json()) as { source: string; report: { areas_erased: Array<Record<string, number>> } };
    expect(job.source).toBe("web");
    const [area] = job.report.areas_erased;
    for (const key of ["x", "y", "width", "height"] as const)
      expect(Math.abs((area?.[key] ?? 0) - LOGO_REGION[key]), key).toBeLessThan(0.01);
    expect(area).toMatchObject({ start_seconds: 1, end_seconds: 2.04 });
  }, 240_000);
});
