import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionCookieOptions } from "../../edge/dashboard/routes/session";
import { sha256Hex } from "../../edge/lib/crypto";
import { type Browser, dash, ownerWorkspace, PASSWORD, sessionCookie, signIn } from "./dashboard-helpers";
import {
  admin,
  api,
  awayFromWindowEdge,
  createJob,
  createWorkspace,
  expectError,
  fixtureBytes,
  uploadFixture,
} from "./helpers";

describe("dashboard sign-in", () => {
  it("refuses a wrong password and an unknown address alike", async () => {
    const { email } = await ownerWorkspace();
    await expectError(
      await dash("/session", { method: "POST", body: { email, password: "not the password" } }),
      401,
      "invalid_credentials",
    );
    await expectError(
      await dash("/session", { method: "POST", body: { email: "nobody@example.com", password: PASSWORD } }),
      401,
      "invalid_credentials",
    );
  });

  it("sets an HttpOnly, SameSite=Strict session cookie that lasts 12 hours; Secure outside local mode", async () => {
    const { email } = await ownerWorkspace();
    const response = await dash("/session", {
      method: "POST",
      body: { email: email.toUpperCase(), password: PASSWORD },
    });
    expect(response.status).toBe(201);
    const cookie = response.headers.get("Set-Cookie") ?? "";
    expect(cookie).toMatch(/^adclean_session=[0-9A-Za-z]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain("Max-Age=43200");
    expect(cookie).not.toContain("Secure"); // local mode: plain http on 127.0.0.1
    expect(sessionCookieOptions({ ...env, ENVIRONMENT: "production" }).secure).toBe(true);
    const body = await response.json<Record<string, unknown>>();
    expect(body).toMatchObject({ email, csrf_token: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // Only the token's SHA-256 is stored.
    const token = sessionCookie(response).split("=")[1] as string;
    const stored = await env.DB.prepare("SELECT token_hash FROM owner_sessions WHERE token_hash IN (?, ?)")
      .bind(token, await sha256Hex(token))
      .all<{ token_hash: string }>();
    expect(stored.results).toEqual([{ token_hash: await sha256Hex(token) }]);
  });

  it("throttles sign-in attempts per address", async () => {
    const { email } = await ownerWorkspace();
    await awayFromWindowEdge();
    const attempt = () =>
      dash("/session", { method: "POST", body: { email, password: "guess" }, address: "192.0.2.7" });
    for (let i = 0; i < 10; i++) await expectError(await attempt(), 401, "invalid_credentials");
    await expectError(await attempt(), 429, "rate_limited");
  });

  it("refuses requests without a session", async () => {
    await expectError(await dash("/jobs"), 401, "session_required");
    await expectError(
      await dash("/jobs", { as: { cookie: "adclean_session=forged", csrf: "x" } }),
      401,
      "session_required",
    );
  });

  it("ends the session server side when it expires, whatever the cookie says", async () => {
    const { browser, email } = await ownerWorkspace();
    expect((await dash("/session", { as: browser })).status).toBe(200);
    const token = browser.cookie.split("=")[1] as string;
    await env.DB.prepare("UPDATE owner_sessions SET expires_at = ? WHERE token_hash = ?")
      .bind(Date.now() - 1, await sha256Hex(token))
      .run();
    await expectError(await dash("/session", { as: browser }), 401, "session_required");
    // The next sign-in clears the expired row.
    await signIn(email);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM owner_sessions WHERE token_hash = ?")
      .bind(await sha256Hex(token))
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("signs out: the session is deleted and the cookie cleared", async () => {
    const { browser } = await ownerWorkspace();
    const response = await dash("/session", { method: "DELETE", as: browser });
    expect(response.status).toBe(204);
    expect(response.headers.get("Set-Cookie")).toMatch(/^adclean_session=;.*Max-Age=0/);
    await expectError(await dash("/account", { as: browser }), 401, "session_required");
  });
});

describe("dashboard CSRF defence", () => {
  it("refuses a state-changing request without the CSRF token, with a wrong one, or from another origin", async () => {
    const { browser } = await ownerWorkspace();
    const create = (init: Parameters<typeof dash>[1]) =>
      dash("/keys", { method: "POST", body: { name: "ci" }, ...init });
    await expectError(await create({ as: { ...browser, csrf: "" } }), 403, "csrf_check_failed");
    await expectError(await create({ as: browser, csrf: "0".repeat(64) }), 403, "csrf_check_failed");
    await expectError(
      await create({ as: browser, origin: "https://evil.example" }),
      403,
      "csrf_check_failed",
    );
    await expectError(await create({ as: browser, origin: null }), 403, "csrf_check_failed");
    expect((await create({ as: browser })).status).toBe(201);
    // Reads need no token.
    expect((await dash("/keys", { as: { ...browser, csrf: "" }, origin: null })).status).toBe(200);
  });

  it("refuses a sign-in posted from another origin", async () => {
    const { email } = await ownerWorkspace();
    await expectError(
      await dash("/session", {
        method: "POST",
        body: { email, password: PASSWORD },
        origin: "https://evil.example",
      }),
      403,
      "csrf_check_failed",
    );
  });
});

describe("one-time sign-in links", () => {
  it("signs in once; the same link a second time is refused", async () => {
    const { workspace_id, email } = await ownerWorkspace();
    const made = await admin(`/workspaces/${workspace_id}/owners/link`, "POST", { email });
    expect(made.status).toBe(201);
    const { url } = await made.json<{ url: string }>();
    const token = url.match(/#\/link\/([0-9A-Za-z]{43})$/)?.[1] as string;
    expect(token).toBeTruthy();
    const first = await dash("/session/link", { method: "POST", body: { token } });
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ email, workspace: { id: workspace_id } });
    await expectError(
      await dash("/session/link", { method: "POST", body: { token } }),
      401,
      "invalid_credentials",
    );
  });

  it("keeps no spent or expired link of the owner once a new one is made", async () => {
    const { workspace_id, email } = await ownerWorkspace();
    const makeLink = async () => {
      const made = await admin(`/workspaces/${workspace_id}/owners/link`, "POST", { email });
      return (await made.json<{ url: string }>()).url.match(/#\/link\/([0-9A-Za-z]{43})$/)?.[1] as string;
    };
    const spent = await makeLink();
    expect((await dash("/session/link", { method: "POST", body: { token: spent } })).status).toBe(201);
    const unused = await makeLink();
    const expired = await makeLink();
    await env.DB.prepare("UPDATE owner_sign_in_links SET expires_at = 0 WHERE token_hash = ?")
      .bind(await sha256Hex(expired))
      .run();
    const latest = await makeLink();
    const kept = await env.DB.prepare(
      "SELECT token_hash FROM owner_sign_in_links WHERE owner_id = (SELECT id FROM owners WHERE email = ?)",
    )
      .bind(email)
      .all<{ token_hash: string }>();
    expect(kept.results.map((row) => row.token_hash).sort()).toEqual(
      [await sha256Hex(unused), await sha256Hex(latest)].sort(),
    );
    // The link still waiting to be used works.
    expect((await dash("/session/link", { method: "POST", body: { token: unused } })).status).toBe(201);
  });

  it("is made only for the workspace's own owner", async () => {
    const { email } = await ownerWorkspace();
    const other = await createWorkspace();
    await expectError(
      await admin(`/workspaces/${other.workspace_id}/owners/link`, "POST", { email }),
      404,
      "resource_not_found",
    );
  });
});

describe("passwords", () => {
  const NEW_PASSWORD = "a brand new passphrase";
  const change = (as: Browser, body: unknown) => dash("/session/password", { method: "PUT", as, body });
  const session = (as: Browser) => dash("/session", { as });

  it("changes with the current password: this session stays, the others end, only the new one signs in", async () => {
    const { email, browser } = await ownerWorkspace();
    const elsewhere = await signIn(email);
    expect((await change(browser, { current_password: PASSWORD, new_password: NEW_PASSWORD })).status).toBe(
      204,
    );
    expect((await session(browser)).status).toBe(200);
    await expectError(await session(elsewhere), 401, "session_required");
    await expectError(
      await dash("/session", { method: "POST", body: { email, password: PASSWORD } }),
      401,
      "invalid_credentials",
    );
    expect((await session(await signIn(email, NEW_PASSWORD))).status).toBe(200);
  });

  it("refuses a wrong current password, a new one under 12 characters, and a request without the CSRF token", async () => {
    const { email, browser } = await ownerWorkspace();
    const wrong = await expectError(
      await change(browser, { current_password: "not the password", new_password: NEW_PASSWORD }),
      401,
      "invalid_credentials",
    );
    expect(wrong.error.param).toBe("current_password");
    const short = await change(browser, { current_password: PASSWORD, new_password: "too short" });
    expect(short.status).toBe(400);
    expect((await short.json<{ error: { param?: string } }>()).error.param).toBe("new_password");
    await expectError(
      await dash("/session/password", {
        method: "PUT",
        as: browser,
        csrf: "wrong",
        body: { current_password: PASSWORD, new_password: NEW_PASSWORD },
      }),
      403,
      "csrf_check_failed",
    );
    // Nothing changed: the old password still signs in, and the session that tried is still on.
    expect((await session(await signIn(email))).status).toBe(200);
    expect((await session(browser)).status).toBe(200);
  });

  it("an operator's reset ends every session of the owner; the new password signs in", async () => {
    const { workspace_id, email, browser } = await ownerWorkspace();
    const reset = await admin(`/workspaces/${workspace_id}/owners/password`, "PUT", {
      email: email.toUpperCase(),
      password: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);
    expect(await reset.json()).toMatchObject({ workspace_id, email });
    await expectError(await session(browser), 401, "session_required");
    expect((await session(await signIn(email, NEW_PASSWORD))).status).toBe(200);
    const other = await createWorkspace();
    await expectError(
      await admin(`/workspaces/${other.workspace_id}/owners/password`, "PUT", {
        email,
        password: NEW_PASSWORD,
      }),
      404,
      "resource_not_found",
    );
  });
});

describe("owners via the admin API", () => {
  it("stores only a salted PBKDF2-SHA256 hash of the password, with its own salt per owner", async () => {
    const first = await ownerWorkspace();
    const second = await ownerWorkspace();
    const rows = await env.DB.prepare("SELECT password_hash FROM owners WHERE email IN (?, ?)")
      .bind(first.email, second.email)
      .all<{ password_hash: string }>();
    const hashes = rows.results.map((row) => row.password_hash);
    expect(hashes).toHaveLength(2);
    for (const hash of hashes) {
      expect(hash).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
      expect(hash).not.toContain(PASSWORD);
    }
    // The same password, two salts: two different hashes.
    expect(hashes[0]).not.toBe(hashes[1]);
  });

  it("refuses a short password and a second owner with the same address", async () => {
    const { workspace_id, email } = await ownerWorkspace();
    await expectError(
      await admin(`/workspaces/${workspace_id}/owners`, "POST", {
        email: "x@example.com",
        password: "short",
      }),
      400,
      "invalid_parameter",
    );
    await expectError(
      await admin(`/workspaces/${workspace_id}/owners`, "POST", { email, password: PASSWORD }),
      409,
      "owner_exists",
    );
  });
});

describe("dashboard jobs", () => {
  it("creates jobs with source web through the upload flow, also on a plan without API access", async () => {
    const { browser, api_key } = await ownerWorkspace("starter");
    const bytes = await fixtureBytes("clip.mp4");
    const created = await dash("/uploads", {
      method: "POST",
      as: browser,
      body: { filename: "clip.mp4", content_type: "video/mp4", size_bytes: bytes.length },
    });
    expect(created.status).toBe(201);
    const upload = await created.json<{ id: string; upload_url: string; headers: Record<string, string> }>();
    expect(
      (await SELF.fetch(upload.upload_url, { method: "PUT", headers: upload.headers, body: bytes })).status,
    ).toBe(200);
    const response = await dash("/jobs", {
      method: "POST",
      as: browser,
      body: { upload_id: upload.id, texts: ["SALE 50% OFF"] },
    });
    expect(response.status).toBe(201);
    const job = await response.json<{ id: string }>();
    expect(job).toMatchObject({ source: "web", status: "queued", credits: 25 });
    const detail = await (await dash(`/jobs/${job.id}`, { as: browser })).json<Record<string, unknown>>();
    expect(detail).toMatchObject({
      id: job.id,
      source: "web",
      original_url: expect.stringContaining("/storage/download/"),
    });
    const original = await SELF.fetch(detail.original_url as string);
    expect(original.status).toBe(200);
    expect(new Uint8Array(await original.arrayBuffer()).length).toBe(bytes.length);
    // The same workspace's API key is still held to the plan gate.
    await expectError(await api("/v1/jobs", { key: api_key }), 403, "plan_required");
    const usage = await (await dash("/account", { as: browser })).json<Record<string, unknown>>();
    expect(usage).toMatchObject({
      plan: { id: "starter" },
      credits: { total: 975 },
      usage: { jobs: 1, credits_spent: 25 },
    });
    const canceled = await dash(`/jobs/${job.id}/cancel`, { method: "POST", as: browser });
    expect(await canceled.json()).toMatchObject({ status: "canceled", credits_refunded: true });
  });

  it("filters the list by status", async () => {
    const { browser, api_key } = await ownerWorkspace();
    const job = await createJob(api_key, { upload_id: (await uploadFixture(api_key, "clip.mp4")).id });
    const queued = await (await dash("/jobs?status=queued", { as: browser })).json<{
      data: { id: string }[];
    }>();
    expect(queued.data.map((j) => j.id)).toEqual([job.id]);
    const failed = await (await dash("/jobs?status=failed", { as: browser })).json<{ data: unknown[] }>();
    expect(failed.data).toEqual([]);
    await expectError(await dash("/jobs?status=nope", { as: browser }), 400, "invalid_parameter");
  });
});

describe("dashboard workspace isolation", () => {
  it("never shows or touches another workspace's jobs, keys or webhooks", async () => {
    const mine = await ownerWorkspace();
    const theirs = await ownerWorkspace();
    const theirJob = await createJob(theirs.api_key, {
      upload_id: (await uploadFixture(theirs.api_key, "clip.mp4")).id,
    });
    const myJobs = await (await dash("/jobs", { as: mine.browser })).json<{ data: unknown[] }>();
    expect(myJobs.data).toEqual([]);
    await expectError(await dash(`/jobs/${theirJob.id}`, { as: mine.browser }), 404, "job_not_found");
    await expectError(
      await dash(`/jobs/${theirJob.id}/cancel`, { method: "POST", as: mine.browser }),
      404,
      "job_not_found",
    );
    const myKeys = await (await dash("/keys", { as: mine.browser })).json<{ data: { key_id: string }[] }>();
    expect(myKeys.data.map((k) => k.key_id)).toEqual([mine.key_id]);
    await expectError(
      await dash(`/keys/${theirs.key_id}/revoke`, { method: "POST", as: mine.browser }),
      404,
      "resource_not_found",
    );
    expect((await api("/v1/account", { key: theirs.api_key })).status).toBe(200);
    const theirEvents = await (await dash("/webhook", { as: theirs.browser })).json<{
      endpoint: { url: null };
    }>();
    expect(theirEvents.endpoint.url).toBeNull();
    // A session is bound to its workspace: the other owner's page shows the other workspace.
    const session = await (await dash("/session", { as: theirs.browser })).json<{
      workspace: { id: string };
    }>();
    expect(session.workspace.id).toBe(theirs.workspace_id);
  });
});

describe("dashboard keys and webhooks", () => {
  it("creates a key shown once, lists it by prefix, revokes it and /v1 refuses it", async () => {
    const { browser } = await ownerWorkspace();
    const created = await (
      await dash("/keys", { method: "POST", as: browser, body: { name: "zapier" } })
    ).json<{
      key_id: string;
      api_key: string;
    }>();
    expect((await api("/v1/account", { key: created.api_key })).status).toBe(200);
    const list = await (await dash("/keys", { as: browser })).text();
    expect(list).not.toContain(created.api_key);
    expect(JSON.parse(list).data[0]).toMatchObject({
      key_id: created.key_id,
      name: "zapier",
      prefix: created.api_key.slice(0, 12),
    });
    const revoked = await dash(`/keys/${created.key_id}/revoke`, { method: "POST", as: browser });
    expect(revoked.status).toBe(200);
    await expectError(await api("/v1/account", { key: created.api_key }), 401, "invalid_api_key");
  });

  it("keeps webhooks to plans that have them", async () => {
    const { browser } = await ownerWorkspace("starter");
    await expectError(await dash("/webhook", { as: browser }), 403, "plan_required");
    await expectError(await dash("/webhook/test", { method: "POST", as: browser }), 403, "plan_required");
  });

  it("answers no-store and the error envelope for unknown paths", async () => {
    const { browser } = await ownerWorkspace();
    const response = await dash("/session", { as: browser });
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    await expectError(await dash("/nope", { as: browser }), 404, "resource_not_found");
  });
});
