import { expect } from "bun:test";
import { DEV_ACQUIRER_API_KEY, DEV_ACQUIRER_CALLBACK_SECRET } from "@payaccept/contracts";
import { emulatorConnector } from "../../services/payments/src/connectors/emulator/index.ts";
import { AcquirerClient } from "../acquirer-fixtures.ts";
import { eventually, Stack } from "../harness/stack.ts";
import type { ConformanceDriver } from "./conformance.ts";

/** The buyer's page origin of the suite's sessions: the emulator's card form takes a post from it without its own token. */
const PAYPAGE_ORIGIN = "http://localhost:39998";

const PANS = {
  approve: "4111111111111111",
  decline: "4000000000000002",
  "3ds": "4000000000003220",
  insufficient_funds: "4000000000009995",
  expired: "4000000000000069",
  authenticate: "4000000000000341",
  lost_answer: "4000000000000077",
} as const;

/** The acquirer emulator as a real process (the stack's acquirer-emulator), reached as payments reaches it. */
export function emulatorDriver(): ConformanceDriver {
  let stack: Stack;
  let acq: AcquirerClient;
  /** The payer's cookie of each binding, for its revocation in the bank app. */
  const payers = new Map<string, string>();

  async function challenge(url: string): Promise<void> {
    const step = acq.local(url);
    expect((await acq.postForm(step, { token: await acq.tokenOf(step), code: "123456" }, acq.publicOrigin)).status).toBe(303);
  }

  return {
    id: "emulator",
    async start(notifyBase) {
      stack = await Stack.start({ services: ["acquirer-emulator"] });
      acq = new AcquirerClient(stack);
      return emulatorConnector({
        baseUrl: acq.base,
        apiKey: DEV_ACQUIRER_API_KEY,
        callbackUrl: `${notifyBase}/provider/callback`,
        callbackSecret: DEV_ACQUIRER_CALLBACK_SECRET,
        // A lost answer is a closed connection, never a wait: the bound only has to outlast a busy host's first calls.
        timeoutMs: 10_000,
      });
    },
    stop: () => stack?.stop(),
    async payCard(s, card) {
      if (s.method !== "CARD") throw new Error("not a card session");
      const res = await acq.postForm(acq.local(s.formAction), { pan: PANS[card], exp: "12/99", cvc: "123", holder: "IVAN PETROV" }, PAYPAGE_ORIGIN);
      expect(res.status).toBe(303);
      if (card === "3ds") await challenge(`${s.formAction}/3ds`);
    },
    async paySbp(s, how) {
      if (s.method !== "SBP") throw new Error("not an SBP session");
      await acq.bankApp(s.qrPayload, how === "bind" ? "pay-bind" : "pay");
    },
    // The emulator's test cards decide their charges themselves.
    afterSaved: () => {},
    authenticate: challenge,
    async bind(links, seen) {
      if (links.method !== "SBP") throw new Error("not an SBP session");
      const cookie = await acq.bankApp(links.qrPayload, "bind");
      const bound = await eventually(() => seen().find((r) => r.known?.event === "BOUND" && r.callback.sessionId === links.sessionId));
      const methodId = bound.known!.savedMethod!.methodId;
      payers.set(methodId, cookie!);
      return methodId;
    },
    async payerRevokes(methodId) {
      const cookie = payers.get(methodId)!;
      const list = await (await fetch(`${acq.base}/app/bindings`, { headers: { Cookie: cookie } })).text();
      const token = new RegExp(`/app/bindings/${methodId}/revoke"><input type="hidden" name="token" value="([0-9a-f]{64})"`).exec(list)![1]!;
      expect((await acq.postForm(`${acq.base}/app/bindings/${methodId}/revoke`, { token }, acq.publicOrigin, cookie)).status).toBe(303);
    },
    down: () => stack.service("acquirer-emulator").stop("SIGKILL"),
    async up() {
      const svc = stack.service("acquirer-emulator");
      svc.start();
      await svc.waitReady();
    },
  };
}
