import { afterEach, expect, test } from "bun:test";
import { healthRoutes } from "./http.ts";
import { registerStoreProbe } from "./store-readiness.ts";

const unregister: (() => void)[] = [];
afterEach(() => unregister.splice(0).forEach((u) => u()));

/** The readiness lines of /metrics, e.g. `service_readiness_check{check="nats"} 1`. */
async function readinessLines(app: ReturnType<typeof healthRoutes>): Promise<string[]> {
  const text = await (await app.request("/metrics")).text();
  return text.split("\n").filter((l) => /^service_read(y|iness_check)[{ ]/.test(l));
}

/** The lines /metrics should carry for an overall answer and each check's, in the order /readyz runs them. */
const expected = (ready: 0 | 1, checks: Record<string, 0 | 1>) => [
  `service_ready ${ready}`,
  ...Object.entries(checks).map(([check, ok]) => `service_readiness_check{check="${check}"} ${ok}`),
];

test("/metrics reports what /readyz answers, check by check, as it flips", async () => {
  let natsUp = true;
  let storeUp = true;
  const probeStore = () =>
    unregister.push(
      registerStoreProbe("THING_DATABASE_URL", () => {
        if (!storeUp) throw Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
      }),
    );
  probeStore();
  const app = healthRoutes({ nats: () => natsUp, consumer: async () => true });

  expect((await app.request("/readyz")).status).toBe(200);
  expect(await readinessLines(app)).toEqual(expected(1, { nats: 1, consumer: 1, database: 1 }));

  natsUp = false;
  expect((await app.request("/readyz")).status).toBe(503);
  expect(await readinessLines(app)).toEqual(expected(0, { nats: 0, consumer: 1, database: 1 }));

  // The store's probe keeps its answer for a second (store-readiness.ts): a fresh probe, not a stale "up".
  unregister.splice(0).forEach((u) => u());
  storeUp = false;
  probeStore();
  natsUp = true;
  expect((await app.request("/readyz")).status).toBe(503);
  expect(await readinessLines(app)).toEqual(expected(0, { nats: 1, consumer: 1, database: 0 }));
});

test("a check that throws counts as failing, on /readyz and on /metrics alike", async () => {
  const app = healthRoutes({
    nats: () => true,
    rpc: () => {
      throw new Error("not serving yet");
    },
  });
  const res = await app.request("/readyz");
  expect(res.status).toBe(503);
  expect(await res.json()).toEqual({ status: "not ready", checks: { nats: true, rpc: false } });
  expect(await readinessLines(app)).toEqual(expected(0, { nats: 1, rpc: 0 }));
});
