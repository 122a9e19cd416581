import { afterEach, describe, expect, test } from "bun:test";
import { healthRoutes } from "./http.ts";
import { registerStoreProbe } from "./store-readiness.ts";

const unregister: (() => void)[] = [];
afterEach(() => unregister.splice(0).forEach((u) => u()));

const readyz = async (app: ReturnType<typeof healthRoutes>) => {
  const res = await app.request("/readyz");
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, boolean>; down?: Record<string, string> } };
};

describe("/readyz asks the store the process opened", () => {
  test("a storm of probes costs the store one select: they share the probe in flight and its answer", async () => {
    let selects = 0;
    let answer!: () => void;
    unregister.push(
      registerStoreProbe("THING_DATABASE_URL", () => {
        selects++;
        return new Promise<void>((resolve) => (answer = resolve));
      }),
    );
    const app = healthRoutes({ nats: () => true });
    const storm = Array.from({ length: 50 }, () => readyz(app));
    await Bun.sleep(0);
    answer();
    const results = await Promise.all(storm);
    expect(results.every((r) => r.status === 200 && r.body.checks.database === true && r.body.checks.nats === true)).toBe(true);
    expect(selects).toBe(1);
  });

  test("a failing store: 503 naming the store and the driver's code, never its message", async () => {
    unregister.push(
      registerStoreProbe("THING_DATABASE_URL", () => {
        throw Object.assign(new Error("connect to postgres://app:secret@db.internal failed"), { code: "ERR_POSTGRES_CONNECTION_REFUSED" });
      }),
    );
    const { status, body } = await readyz(healthRoutes({ nats: () => true }));
    expect(status).toBe(503);
    expect(body).toEqual({
      status: "not ready",
      checks: { nats: true, database: false },
      down: { database: "THING_DATABASE_URL: ERR_POSTGRES_CONNECTION_REFUSED" },
    });
  });

  test("no store opened: no database check", async () => {
    expect((await readyz(healthRoutes({ nats: () => true }))).body).toEqual({ status: "ready", checks: { nats: true } });
  });
});
