import { expect } from "bun:test";
import { tbankConnector } from "../../services/payments/src/connectors/tbank/index.ts";
import { methodRefOf } from "../../services/payments/src/connectors/tbank/refs.ts";
import { FakeTBank, TEST_CARDS, THREE_DS_CODE } from "../fakes/tbank/fake-tbank.ts";
import { eventually } from "../harness/stack.ts";
import type { ConformanceDriver } from "./conformance.ts";

export const TERMINAL = { key: "1234567890TESTDEMO", password: "fake-terminal-password" };

const quiet = { warn: () => {}, error: () => {} };

/** The buyer on the fake bank's pages, as a browser submits them. */
export async function submit(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });
}

/** Pays the fake bank's card form at a PaymentURL with a test card (and its 3-D Secure code when it asks). */
export async function payOnBankForm(paymentUrl: string, pan: string): Promise<Response> {
  expect((await fetch(paymentUrl)).status).toBe(200);
  const res = await submit(paymentUrl, { pan, exp: "12/30", cvv: "123" });
  if (res.status === 303 && res.headers.get("location")?.endsWith("/3ds")) return submit(new URL(res.headers.get("location")!, paymentUrl).href, { code: THREE_DS_CODE });
  return res;
}

/** T-Bank's connector against the fake of its API (tests/fakes/tbank), written from the bank's documentation. */
export function tbankDriver(): ConformanceDriver & { fake: () => FakeTBank } {
  let fake: FakeTBank;
  const PANS = { approve: TEST_CARDS.success, decline: TEST_CARDS.declined, "3ds": TEST_CARDS.success3ds } as Record<string, string>;
  return {
    id: "tbank",
    fake: () => fake,
    async start(notifyBase) {
      const notificationUrl = `${notifyBase}/provider/tbank/notification`;
      fake = new FakeTBank({ terminals: { [TERMINAL.key]: TERMINAL.password }, notificationUrl, sbpRefundMs: 100 });
      return tbankConnector({ baseUrl: fake.apiUrl, terminalKey: TERMINAL.key, password: TERMINAL.password, timeoutMs: 1500, notificationUrl, log: quiet });
    },
    stop: () => fake.stop(),
    async payCard(s, card) {
      if (s.method !== "CARD") throw new Error("not a card session");
      const res = await payOnBankForm(s.formAction, PANS[card] ?? TEST_CARDS.success);
      expect(res.status).toBe(303);
    },
    async paySbp(s, how) {
      if (s.method !== "SBP") throw new Error("not an SBP session");
      expect((await fetch(s.qrPayload)).status).toBe(200);
      expect((await submit(s.qrPayload, { action: how })).status).toBe(200);
    },
    afterSaved(profile, methodId) {
      const m = methodRefOf(methodId);
      if (m?.method !== "CARD") throw new Error("not a T-Bank card");
      if (profile === "insufficient_funds") fake.cardDeclines(m.rebillId, "1051");
      if (profile === "expired") fake.cardDeclines(m.rebillId, "1054");
      if (profile === "authenticate") fake.nextChargeOutcome({ kind: "3ds" });
      if (profile === "lost_answer") fake.dropAnswer("Charge");
    },
    async authenticate(url) {
      expect((await payOnBankForm(url, TEST_CARDS.success3ds)).status).toBe(303);
    },
    async bind(links) {
      if (links.method !== "SBP") throw new Error("not an SBP session");
      expect((await submit(links.qrPayload, { action: "bind" })).status).toBe(200);
      const requestKey = links.sessionId.split(".")[1]!;
      const account = await eventually(
        () => fake.deliveries.find((d) => d.body.NotificationType === "LINKACCOUNT" && d.body.RequestKey === requestKey)?.body.AccountToken as string | undefined,
      );
      return `sbp:${requestKey}:${account}`;
    },
    async payerRevokes(methodId) {
      const m = methodRefOf(methodId);
      if (m?.method !== "SBP") throw new Error("not a T-Bank account binding");
      fake.deactivateBinding(m.accountToken);
    },
    down: () => fake.stop(),
    up: async () => fake.start(),
  };
}
