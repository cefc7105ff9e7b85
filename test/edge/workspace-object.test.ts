import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { reserve } from "../../edge/workspace/credits";
import { migrateWorkspace, WORKSPACE_MIGRATIONS } from "../../edge/workspace/schema";
import { IDEMPOTENCY_TTL_MS, type WorkspaceObject } from "../../edge/workspace/workspace-object";

function freshObject() {
  return env.WORKSPACE.get(env.WORKSPACE.idFromName(`test-${crypto.randomUUID()}`));
}

describe("workspace Durable Object", () => {
  it("keeps an idempotent answer for 24 hours; the first answer stored wins", async () => {
    const stub = freshObject();
    const now = Date.now();
    const first = await stub.storeAnswer(
      "POST /v1/jobs",
      "k1",
      { fingerprint: "a", status: 201, body: "{}" },
      now,
    );
    const second = await stub.storeAnswer(
      "POST /v1/jobs",
      "k1",
      { fingerprint: "b", status: 201, body: "[]" },
      now,
    );
    expect(second).toEqual(first);
    expect(await stub.storedAnswer("POST /v1/jobs", "k1", now + IDEMPOTENCY_TTL_MS - 1)).toMatchObject({
      fingerprint: "a",
    });
    expect(await stub.storedAnswer("POST /v1/jobs", "k1", now + IDEMPOTENCY_TTL_MS)).toBeNull();
    expect(await stub.storedAnswer("POST /v1/uploads", "k1", now)).toBeNull();
  });

  it("its alarm purges expired answers", async () => {
    const stub = freshObject();
    await stub.storeAnswer(
      "scope",
      "old",
      { fingerprint: "x", status: 200, body: "{}" },
      Date.now() - IDEMPOTENCY_TTL_MS,
    );
    await stub.storeAnswer("scope", "new", { fingerprint: "y", status: 200, body: "{}" });
    // The old answer expires now, so its alarm is due at once: the runtime may have run it already
    // (a loaded machine did), or be running it still, and then there is none left to run here. Either
    // way it must purge: looked at again, briefly, while the runtime's own run may be under way.
    const keys = async () =>
      (
        await runInDurableObject(stub, (_instance, state) =>
          state.storage.sql.exec<{ key: string }>("SELECT key FROM idempotency").toArray(),
        )
      ).map((row) => row.key);
    await runDurableObjectAlarm(stub);
    let rows = await keys();
    for (let tries = 0; rows.includes("old") && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await runDurableObjectAlarm(stub);
      rows = await keys();
    }
    expect(rows).toEqual(["new"]);
  });

  it("never lets a balance go below zero and records every grant in the ledger", async () => {
    const stub = freshObject();
    await stub.grant({ plan: 10, pack: 5 }, "test");
    // Called in the object itself: an RPC rejection would surface as an unhandled error in the runner.
    const refused = await runInDurableObject(stub, (instance) => {
      try {
        (instance as WorkspaceObject).grant({ plan: -20 }, "test");
        return false;
      } catch {
        return true;
      }
    });
    expect(refused).toBe(true);
    expect(await stub.balances()).toEqual({ plan: 10, pack: 5 });
    const ledger = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql.exec("SELECT reason, plan_delta, pack_delta FROM ledger").toArray(),
    );
    expect(ledger).toEqual([{ reason: "test", plan_delta: 10, pack_delta: 5 }]);
  });

  it("a refund gives plan credits back only to the period that reserved them", async () => {
    const stub = freshObject();
    await stub.grant({ plan: 100, pack: 10 }, "test");
    const reserveFor = (jobId: string, credits: number) =>
      runInDurableObject(stub, (_instance, state) =>
        state.storage.transactionSync(() => reserve(state.storage.sql, jobId, credits)),
      );
    // Just before the period ends: all the plan credits and a little of the pack are reserved.
    expect(await reserveFor("job_before_a", 60)).toBe(true);
    expect(await reserveFor("job_before_b", 45)).toBe(true);
    expect(await stub.balances()).toEqual({ plan: 0, pack: 5 });

    await stub.renewPlan(Date.now(), 100);
    expect(await stub.balances()).toEqual({ plan: 100, pack: 5 });
    // Canceled after the renewal: the old period's plan credits expired with it; pack credits never expire.
    expect(await stub.refundJob("job_before_a")).toBe(true);
    expect(await stub.refundJob("job_before_b")).toBe(true);
    expect(await stub.balances()).toEqual({ plan: 100, pack: 10 });

    // A reservation of the current period still comes back whole.
    expect(await reserveFor("job_after", 30)).toBe(true);
    expect(await stub.refundJob("job_after")).toBe(true);
    expect(await stub.balances()).toEqual({ plan: 100, pack: 10 });
  });
});

describe("workspace Durable Object storage migrations", () => {
  it("are numbered 1, 2, … in the order they are applied", () => {
    expect(WORKSPACE_MIGRATIONS.map((migration) => migration.version)).toEqual(
      WORKSPACE_MIGRATIONS.map((_, index) => index + 1),
    );
  });

  it("a new object is at the last version and takes reservations with their period", async () => {
    const stub = freshObject();
    const version = await runInDurableObject(stub, (_instance, state) => {
      const columns = state.storage.sql
        .exec<{ name: string }>("SELECT name FROM pragma_table_info('reservations')")
        .toArray()
        .map((column) => column.name);
      expect(columns).toContain("period");
      return state.storage.sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
    });
    expect(version).toBe(WORKSPACE_MIGRATIONS.length);
  });

  it("an object made before the migrations were numbered is brought up in order, each step once", async () => {
    const stub = freshObject();
    const applied = await runInDurableObject(stub, (_instance, state) => {
      const { sql } = state.storage;
      // As such an object was stored: version 1's tables, a reservation without a period, no version.
      sql.exec("DROP TABLE schema_version");
      sql.exec("DROP TABLE reservations");
      sql.exec(`CREATE TABLE reservations (job_id TEXT PRIMARY KEY, plan_part INTEGER NOT NULL,
        pack_part INTEGER NOT NULL, state TEXT NOT NULL, created_at INTEGER NOT NULL, closed_at INTEGER)`);
      sql.exec("UPDATE balances SET renewed_period_end = 1234");
      sql.exec("INSERT INTO reservations VALUES ('job_old', 5, 0, 'reserved', 1, NULL)");
      const order: number[] = [];
      const third = {
        version: WORKSPACE_MIGRATIONS.length + 1,
        change: "a later change",
        apply: () => undefined,
      };
      const traced = [...WORKSPACE_MIGRATIONS, third].map((migration) => ({
        ...migration,
        apply: (db: SqlStorage) => {
          order.push(migration.version);
          migration.apply(db);
        },
      }));
      const reached = migrateWorkspace(state.storage, traced);
      const again = migrateWorkspace(state.storage, traced);
      const period = sql.exec<{ period: number }>("SELECT period FROM reservations").one().period;
      return { order, reached, again, period };
    });
    // Every step in order, and none again on the second run.
    expect(applied.order).toEqual(Array.from({ length: WORKSPACE_MIGRATIONS.length + 1 }, (_, i) => i + 1));
    expect(applied.reached).toBe(WORKSPACE_MIGRATIONS.length + 1);
    expect(applied.again).toBe(WORKSPACE_MIGRATIONS.length + 1);
    expect(applied.period).toBe(1234);
  });
});
