import { describe, expect, test } from "bun:test";
import type { ProviderSession } from "@payaccept/contracts";
import { notStarted, ProviderError, type ProviderPort } from "../provider/port.ts";
import type { Connector } from "./connector.ts";
import { Connectors } from "./connectors.ts";
import { ConnectorHealthMonitor } from "./health.ts";

const session: ProviderSession = { sessionId: "s-1", method: "CARD", formAction: "https://bank.example/pay/1" };
const request = { paymentId: "p-1", method: "CARD" as const, amountKopecks: 100, description: null, returnUrl: "https://pay.example/pay/p-1", expiresAt: 0 };

/** A port whose createSession does what `behave` says, counting its calls. */
function port(behave: () => Promise<ProviderSession>): ProviderPort & { calls: number } {
  const p = { calls: 0 } as ProviderPort & { calls: number };
  p.createSession = () => {
    p.calls++;
    return behave();
  };
  return p;
}
const connector = (id: "emulator" | "tbank", p: ProviderPort): Connector => ({
  id,
  port: p,
  cardPage: "fields",
  notifications: { path: `/${id}`, read: async () => [], answer: () => new Response(), refusal: () => new Response() },
});
const quiet = { info() {}, warn() {} };
const circuit = { failures: 2, openMs: 1000, windowMs: 60_000 };

describe("routing a session over a shop's connectors", () => {
  test("the next connector takes it only when nothing began at the first: refused connection, 5xx, not configured", async () => {
    const down = port(() => Promise.reject(notStarted("ECONNREFUSED")));
    const up = port(async () => session);
    const connectors = new Connectors([connector("tbank", down), connector("emulator", up)], "emulator", circuit, quiet);
    expect(await connectors.openSession(["tbank", "emulator"], request)).toEqual({ connector: "emulator", session });
    expect([down.calls, up.calls]).toEqual([1, 1]);
    const onlyEmulator = new Connectors([connector("emulator", up)], "emulator", circuit, quiet);
    expect((await onlyEmulator.openSession(["tbank", "emulator"], request)).connector).toBe("emulator");
  });

  test("an unknown outcome (a timeout, a lost answer) or a refusal is the session's outcome: never sent to a second acquirer", async () => {
    for (const failure of [new ProviderError("unavailable", "no answer within 2500 ms"), new ProviderError("rejected", "no", "HOLD_NOT_FOR_SBP")]) {
      const first = port(() => Promise.reject(failure));
      const second = port(async () => session);
      const connectors = new Connectors([connector("tbank", first), connector("emulator", second)], "emulator", circuit, quiet);
      expect(await connectors.openSession(["tbank", "emulator"], request).catch((e) => e)).toBe(failure);
      expect(second.calls).toBe(0);
    }
  });

  test("every connector down: the last 'nothing began' is the answer; a shop without a list uses the default", async () => {
    const down = port(() => Promise.reject(notStarted("503")));
    const connectors = new Connectors([connector("tbank", down), connector("emulator", down)], "tbank", circuit, quiet);
    expect(await connectors.openSession(["tbank", "emulator"], request).catch((e) => e)).toMatchObject({ kind: "unavailable", started: false });
    expect(connectors.candidates({}, "SBP")).toEqual(["tbank"]);
    expect(connectors.candidates({ connectors: { SBP: ["emulator"] } }, "SBP")).toEqual(["emulator"]);
    expect(connectors.candidates({ connectors: { SBP: ["emulator"] } }, "CARD")).toEqual(["tbank"]);
  });
});

describe("a connector's circuit", () => {
  test("opens after the unanswered calls in a row, fails at once as 'nothing began', lets one trial through after its time, closes on an answer", async () => {
    let now = 0;
    const monitor = new ConnectorHealthMonitor("tbank", circuit, () => now);
    let fail = true;
    const inner = port(() => (fail ? Promise.reject(new ProviderError("unavailable", "timeout")) : Promise.resolve(session)));
    const p = monitor.wrap(inner);
    for (let i = 0; i < 2; i++) await p.createSession(request).catch(() => {});
    expect(monitor.circuit).toBe("open");
    expect(await p.createSession(request).catch((e) => e)).toMatchObject({ kind: "unavailable", started: false });
    expect(inner.calls).toBe(2);
    now = 1000;
    expect(monitor.circuit).toBe("half-open");
    // The trial fails: open again, for another openMs.
    await p.createSession(request).catch(() => {});
    expect([inner.calls, monitor.circuit]).toEqual([3, "open"]);
    now = 2000;
    fail = false;
    expect(await p.createSession(request)).toEqual(session);
    expect(monitor.circuit).toBe("closed");
    expect(monitor.health(true, false)).toMatchObject({ id: "tbank", circuit: "closed", calls: 4, successRatio: 0.25 });
  });

  test("a refusal is an answer: the acquirer is up, the circuit stays closed", async () => {
    const monitor = new ConnectorHealthMonitor("emulator", circuit, () => 0);
    const p = monitor.wrap(port(() => Promise.reject(new ProviderError("rejected", "no"))));
    for (let i = 0; i < 5; i++) await p.createSession(request).catch(() => {});
    expect(monitor.health(true, true)).toMatchObject({ circuit: "closed", calls: 5, successRatio: 1 });
  });
});
