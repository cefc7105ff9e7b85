import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeCaptionedClip, makeLongTinyClip, makeTinyClip } from "../fixtures/media";
import { launchChromium } from "../helpers/browser";
import {
  type CliWorkspace,
  cliWorkspace,
  npmRun,
  PROJECT_ROOT,
  type RunningStack,
  startStack,
} from "../helpers/stack";

/** Screenshots of every page, for people to look at (gitignored). */
const SHOTS = path.join(PROJECT_ROOT, "test-results/dashboard");
const EMAIL = "marketer@example.com";
const PASSWORD = "a long dashboard password";
const CAPTION = "SALE 50% OFF";
const PRICE_CUT = "-50% TODAY";

let stack: RunningStack;
let receiver: FileServer;
let browser: Browser;
let page: Page;
let workspace: CliWorkspace;
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-dashboard-"));
const clip = path.join(dir, "spring-ad.mp4");
const tooLong = path.join(dir, "sixteen-minutes.mp4");
const tooWide = path.join(dir, "too-wide.mp4");

const admin = async (args: string[]) => {
  const run = await npmRun("admin", args, { BASE_URL: stack.baseUrl });
  if (run.code !== 0) throw new Error(`admin ${args.join(" ")}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, string>;
};

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

/** What the test touches of a <video> in the page (this file is type-checked without the DOM library). */
interface VideoElement {
  muted: boolean;
  currentTime: number;
  videoWidth: number;
  play(): Promise<void>;
}

const heading = () => page.getByRole("heading", { level: 1 });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  makeCaptionedClip(clip, 3, CAPTION);
  makeLongTinyClip(tooLong, 16 * 60);
  makeTinyClip(tooWide, { width: 4000, height: 64, seconds: 1 });
  receiver = await startFileServer(dir);
  stack = await startStack(18847);
  workspace = await cliWorkspace(stack, "growth", 1000);
  // Playwright's launch gives every run a fresh temporary user-data-dir of its own.
  browser = await launchChromium();
  page = await browser.newPage({ acceptDownloads: true });
  page.setDefaultTimeout(30_000);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

// One owner's session, in order: each test goes on from the page, the job and the settings the
// tests before it left (signed in, one uploaded job, a webhook endpoint), as a person would.
describe("the dashboard in a browser, on the real local stack", () => {
  it("an owner made with the admin CLI signs in; a wrong password is refused", async () => {
    const owner = await admin([
      "owner",
      "create",
      "--workspace",
      workspace.workspace_id,
      "--email",
      EMAIL,
      "--password",
      PASSWORD,
    ]);
    expect(owner).toMatchObject({ workspace_id: workspace.workspace_id, email: EMAIL });
    await page.goto(stack.baseUrl);
    await expect.poll(() => heading().textContent()).toBe("Sign in");
    // By keyboard alone: the address field has focus, Tab moves on, Enter submits.
    expect(await page.locator("#email:focus").count()).toBe(1);
    await page.keyboard.type(EMAIL);
    await page.keyboard.press("Tab");
    await page.keyboard.type("not my password");
    await page.keyboard.press("Enter");
    await page.getByRole("alert").filter({ hasText: "Wrong email address or password" }).waitFor();
    await shot("sign-in");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => heading().textContent()).toBe("Clean a video");
    expect(await page.getByText(`${EMAIL} · Workspace`).isVisible()).toBe(true);
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === "adclean_session")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });
  });

  it("refuses a video over 15 minutes before uploading it, blaming its length, not the credits", async () => {
    await page.locator("#video-file").setInputFiles(tooLong);
    await page
      .getByRole("alert")
      .filter({ hasText: "sixteen-minutes.mp4 lasts 16 min; the longest video we clean is 15 minutes." })
      .waitFor();
    // 2,400 credits would be more than the workspace's 1,000: still the length is what is said.
    expect(await page.getByText("Not enough credits").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Start cleaning" }).isDisabled()).toBe(true);
    await shot("clean-too-long");
  });

  it("keeps Start disabled after the service refuses the video, until another file is chosen", async () => {
    // Readable and priced in the browser, refused by the service once uploaded: wider than 4K.
    await page.locator("#video-file").setInputFiles(tooWide);
    await page.getByText(/^too-wide\.mp4: 1\.0 s, costs 25 credits/).waitFor();
    const start = page.getByRole("button", { name: "Start cleaning" });
    await start.click();
    await page.getByRole("alert").filter({ hasText: "the largest we clean is 3840x2160" }).waitFor();
    expect(await start.isDisabled()).toBe(true);
    await shot("clean-refused");
  });

  it("uploads a clip with its price shown first, and follows the job to succeeded", async () => {
    await page.locator("#video-file").setInputFiles(clip);
    await page.getByText("spring-ad.mp4: 3.0 s, costs 25 credits. You have 1,000.").waitFor();
    // A price cut starts with a dash, as in many ads: taken as a text like any other.
    await page.getByLabel("Texts to erase (optional)").fill(`${CAPTION}\n${PRICE_CUT}`);
    await shot("clean");
    await page.getByRole("button", { name: "Start cleaning" }).click();
    await page.waitForURL(/#\/jobs\/job_/);
    expect(await page.locator("#upload-progress").count()).toBe(0); // the job page replaced the form
    await expect.poll(() => heading().textContent()).toBe("spring-ad.mp4");
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const status = (await page.locator("#job-status").textContent()) ?? "";
          seen.add(status);
          return status;
        },
        { timeout: 300_000, interval: 500 },
      )
      .toBe("succeeded");
    expect([...seen].some((status) => ["queued", "analyzing", "processing"].includes(status))).toBe(true);
  });

  it("plays the original and the cleaned video side by side, frames unobstructed, and downloads the result", async () => {
    // The texts asked for are shown with the job.
    expect(await page.locator("#job-texts li").allTextContents()).toEqual([CAPTION, PRICE_CUT]);
    // No browser controls over the frames (they would cover the captions' place): one bar under both.
    for (const id of ["#before-video", "#after-video"])
      expect(await page.locator(id).getAttribute("controls")).toBeNull();
    await page.getByRole("button", { name: "Play both" }).click();
    await page.getByRole("button", { name: "Pause both" }).waitFor();
    for (const id of ["#before-video", "#after-video"]) {
      await expect
        .poll(() => page.locator(id).evaluate((element) => (element as unknown as VideoElement).currentTime))
        .toBeGreaterThan(0);
      const width = await page
        .locator(id)
        .evaluate((element) => (element as unknown as VideoElement).videoWidth);
      expect(width).toBe(480);
    }
    await page.getByRole("button", { name: "Pause both" }).click();
    await shot("job-succeeded");
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download").click()]);
    expect(download.suggestedFilename()).toBe("spring-ad-clean.mp4");
    const saved = path.join(dir, "downloaded.mp4");
    await download.saveAs(saved);
    const bytes = readFileSync(saved);
    expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(bytes.length).toBeGreaterThan(10_000);
  });

  it("lists jobs with their status and filters them", async () => {
    await page.getByRole("link", { name: "Jobs", exact: true }).click();
    await expect.poll(() => heading().textContent()).toBe("Jobs");
    const row = page.getByRole("row").filter({ hasText: "spring-ad.mp4" });
    await row.getByText("succeeded").waitFor();
    await shot("jobs");
    await page.getByLabel("Status").selectOption("failed");
    await page.getByText("No failed jobs.").waitFor();
    await page.getByLabel("Status").selectOption("succeeded");
    await page.getByRole("row").filter({ hasText: "spring-ad.mp4" }).waitFor();
  });

  it("creates an API key shown once, revokes it after a confirmation, and /v1 refuses it", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name (what uses it)").fill("zapier");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key").textContent()) ?? "";
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    const account = () =>
      fetch(`${stack.baseUrl}/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
    expect((await account()).status).toBe(200);
    await shot("keys");
    const row = page.getByRole("row").filter({ hasText: "zapier" });
    await row.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await row.getByText(/^revoked/).waitFor();
    expect((await account()).status).toBe(401);
  });

  it("sets a webhook endpoint and a test event reaches the receiver", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hook/ok/dashboard`);
    await page.getByRole("button", { name: "Save endpoint" }).click();
    expect(await page.locator("#signing-secret").textContent()).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByRole("row").filter({ hasText: "webhook.test" }).getByText("delivered").waitFor();
    const log = (await (await fetch(`${receiver.url}/hook-log/dashboard`)).json()) as Array<{ body: string }>;
    expect(log.map((entry) => JSON.parse(entry.body).type)).toContain("webhook.test");
    await shot("webhooks");
  });

  it("says why a delivery was skipped or failed, and when the next attempt is due", async () => {
    // The job finished before any endpoint existed: its event was skipped, and the page says why.
    await page
      .getByRole("row")
      .filter({ hasText: "job.succeeded" })
      .getByText("skipped: no endpoint was set when the event happened")
      .waitFor();
    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hook/fail/dashboard-fail`);
    await page.getByRole("button", { name: "Save endpoint" }).click();
    await page.getByText(`Sending to ${receiver.url}/hook/fail/dashboard-fail`).waitFor();
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByText(/^pending: the endpoint answered HTTP 500; next attempt /).waitFor();
    await shot("webhooks-reasons");
    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hook/ok/dashboard`);
    await page.getByRole("button", { name: "Save endpoint" }).click();
  });

  it("shows the plan, the credits and this period's jobs", async () => {
    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "This period" }).waitFor();
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("Growth");
    expect(text).toContain("Total975");
    expect(text).toContain("Jobs1");
    // The period the README describes: from a day of one month to the same day of the next.
    const period = /Period(\d+) (\w+) (\d+) to (\d+) (\w+) (\d+)/.exec(text);
    expect(period?.[1]).toBe(period?.[4]);
    expect(period?.[2]).not.toBe(period?.[5]);
    expect(text).toContain("Plans are changed by the service's operator");
    await shot("usage");
  });

  it("shows older jobs on request, a page at a time, newest first", async () => {
    const v1 = async (method: string, route: string, body?: unknown) => {
      const answer = await fetch(`${stack.baseUrl}/v1${route}`, {
        method,
        headers: { Authorization: `Bearer ${workspace.api_key}`, "Content-Type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(answer.status).toBeLessThan(300);
      return (await answer.json()) as { id: string };
    };
    // Two more jobs, canceled at once: three in the workspace, the one uploaded above the oldest.
    const added: string[] = [];
    for (let k = 0; k < 2; k += 1) {
      const job = await v1("POST", "/jobs", { video_url: `${receiver.url}/files/spring-ad.mp4` });
      await v1("POST", `/jobs/${job.id}/cancel`);
      added.unshift(job.id);
    }
    await page.goto(`${stack.baseUrl}/#/jobs?per_page=1`);
    await expect.poll(() => heading().textContent()).toBe("Jobs");
    const rows = page.locator("tbody tr");
    const more = page.getByRole("button", { name: "Show older jobs" });
    await expect.poll(() => rows.count()).toBe(1);
    await more.click();
    await expect.poll(() => rows.count()).toBe(2);
    await more.click();
    await expect.poll(() => rows.count()).toBe(3);
    await expect.poll(() => more.isHidden()).toBe(true);
    const shown = await rows.evaluateAll((all) => all.map((row) => row.getAttribute("data-job")));
    expect(shown.slice(0, 2)).toEqual(added);
    expect(shown[2]).toMatch(/^job_/);
  });

  it("shows a starter workspace's owner what the plan allows and whom to ask for another", async () => {
    const starter = await cliWorkspace(stack, "starter", 1500);
    await admin([
      "owner",
      "create",
      "--workspace",
      starter.workspace_id,
      "--email",
      "starter@example.com",
      "--password",
      PASSWORD,
    ]);
    const { url } = await admin([
      "owner",
      "link",
      "--workspace",
      starter.workspace_id,
      "--email",
      "starter@example.com",
    ]);
    const context = await browser.newContext();
    const other = await context.newPage();
    await other.goto(url as string);
    await other.getByRole("heading", { name: "Clean a video" }).waitFor();
    await other.goto(`${stack.baseUrl}/#/keys`);
    const notice = other.locator("#plan-notice");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("This workspace is on the Starter plan");
    expect(await notice.textContent()).toContain("A key answers only GET /v1/account and GET /v1/estimate.");
    await other.screenshot({ path: path.join(SHOTS, "keys-starter.png"), fullPage: true });
    await other.goto(`${stack.baseUrl}/#/webhooks`);
    await other
      .getByText("Webhook delivery needs the Growth or Scale plan; this workspace is on the Starter plan.")
      .waitFor();
    expect(await other.getByText("ask them to move the workspace to Growth or Scale").count()).toBe(1);
    await other.screenshot({ path: path.join(SHOTS, "webhooks-starter.png"), fullPage: true });
    await context.close();
  });

  it("fits a 375 px wide screen without sideways scrolling", async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const route of ["#/jobs", "#/clean", "#/keys", "#/webhooks", "#/usage"]) {
      await page.goto(`${stack.baseUrl}/${route}`);
      // The router focuses the heading once the page has its content.
      await page.locator("h1:focus").waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      await shot(`narrow-${route.slice(2)}`);
    }
  });

  it("changes the password from the account menu; then only the new one signs in", async () => {
    const NEW_PASSWORD = "another long dashboard password";
    await page.getByRole("link", { name: "Change password" }).click();
    await expect.poll(() => heading().textContent()).toBe("Change password");
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByLabel("New password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    // The whole sentence: the screen reader's announcer says "Password changed." too, 50 ms later.
    await page.getByText("Password changed. Your other sessions were signed out.").waitFor();
    await shot("password");
    const signIn = (password: string) =>
      fetch(`${stack.baseUrl}/dashboard/api/session`, {
        method: "POST",
        headers: { Origin: stack.baseUrl, "Content-Type": "application/json" },
        body: JSON.stringify({ email: EMAIL, password }),
      });
    expect((await signIn(PASSWORD)).status).toBe(401);
    expect((await signIn(NEW_PASSWORD)).status).toBe(201);
    // This tab's session was kept.
    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "This period" }).waitFor();
  });

  it("signs out, then a one-time link signs in once and never again", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => heading().textContent()).toBe("Sign in");
    const { url } = await admin(["owner", "link", "--workspace", workspace.workspace_id, "--email", EMAIL]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:18847\/#\/link\//);
    await page.goto(url as string);
    await expect.poll(() => heading().textContent()).toBe("Clean a video");
    expect(page.url()).not.toContain("link");
    const other = await browser.newPage();
    await other.goto(url as string);
    await other.getByText("This sign-in link was already used or has expired.").waitFor();
    await other.close();
  });
});
