import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ConnectorId, PaymentMethod, ProviderSession } from "@payaccept/contracts";
import type { Connector, StoredSession } from "../../services/payments/src/connectors/connector.ts";
import type { ReadCallback } from "../../services/payments/src/provider/callback.ts";
import { ProviderError, type ProviderPort, type RefundLedger } from "../../services/payments/src/provider/port.ts";
import { eventually, STACK_START_MS } from "../harness/stack.ts";

/**
 * The conformance suite of docs/connectors.md, "Conformance": what payments relies on from any
 * connector, run against each one's real counterpart (the emulator's process, a fake of T-Bank's
 * API written from the bank's documentation). A new connector passes it with a driver that tells
 * the suite how a buyer pays, saves and authenticates at its acquirer.
 */
export type ChargeProfile = "approve" | "insufficient_funds" | "expired" | "authenticate" | "lost_answer";

export type ConformanceDriver = {
  id: ConnectorId;
  /** Starts what the connector talks to, and makes the connector with its notifications sent to `notifyBase` + its path. */
  start(notifyBase: string): Promise<Connector>;
  stop(): Promise<void>;
  /**
   * The buyer pays a card session with a card that is approved, declined, or asks for (and passes)
   * 3-D Secure; or with the card of a charge profile (savedCard), to save it.
   */
  payCard(s: ProviderSession, card: "approve" | "decline" | "3ds" | ChargeProfile): Promise<void>;
  /** The payer pays an SBP session in the bank app, binding the account when asked to. */
  paySbp(s: ProviderSession, how: "pay" | "bind"): Promise<void>;
  /** What makes a saved card's later charges behave as `profile` says, once it is saved (nothing where the card itself decides). */
  afterSaved(profile: ChargeProfile, methodId: string): void;
  /** The buyer completes the bank's authentication of a charge at its URL. */
  authenticate(url: string): Promise<void>;
  /** The payer consents to a binding without payment; the saved method's id (from what the acquirer sent, `seen`, where it says it). */
  bind(links: ProviderSession, seen: () => ReadCallback[]): Promise<string>;
  /** The payer (or the payer's bank) ends a binding. */
  payerRevokes(methodId: string): Promise<void>;
  /** Nothing listens where the connector sends its calls, then again. */
  down(): Promise<void>;
  up(): Promise<void>;
};

const RETURN = "http://localhost:39998/pay/x";

/** Notifications arriving at the connector's route, read as payments reads them. */
class NotificationSink {
  readonly read: ReadCallback[] = [];
  readonly refused: string[] = [];
  readonly stored = new Map<string, StoredSession>();
  connector!: Connector;
  private server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      const channel = this.connector.notifications;
      try {
        const reads = await channel.read({
          headers: req.headers,
          rawBody: await req.text(),
          nowMs: Date.now(),
          stored: async (id) => this.stored.get(id) ?? { sessionId: null, method: null },
        });
        this.read.push(...reads);
        return channel.answer({ retry: false, summary: { result: "applied" } });
      } catch (e) {
        this.refused.push((e as Error).message);
        return channel.refusal(401, {});
      }
    },
  });
  get base(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }
  /** The known results for a merchant's payment id (distinct callbacks), once there are `count`. */
  async of(merchantPaymentId: string, count: number): Promise<ReadCallback[]> {
    const mine = () => [...new Map(this.read.filter((r) => r.known && r.callback.merchantPaymentId === merchantPaymentId).map((r) => [r.callback.callbackId, r])).values()];
    await eventually(() => mine().length >= count, 15_000);
    return mine();
  }
  /** The first result of `event` for a merchant's payment id (a bank may send steps before it, AUTHORIZED before CONFIRMED). */
  async event(merchantPaymentId: string, event: string): Promise<ReadCallback> {
    return eventually(() => this.read.find((r) => r.known?.event === event && r.callback.merchantPaymentId === merchantPaymentId), 15_000);
  }
  stop() {
    this.server.stop(true);
  }
}

export function connectorConformance(driver: ConformanceDriver): void {
  describe(`connector ${driver.id}: conformance`, () => {
    const sink = new NotificationSink();
    let port: ProviderPort;

    // A driver may start a stack (the emulator's).
    beforeAll(async () => {
      sink.connector = await driver.start(sink.base);
      port = sink.connector.port;
    }, STACK_START_MS);
    afterAll(async () => {
      await driver.stop();
      sink.stop();
    });

    const session = async (method: PaymentMethod, extra: Partial<Parameters<ProviderPort["createSession"]>[0]> = {}) => {
      const paymentId = crypto.randomUUID();
      const s = await port.createSession({
        paymentId,
        method,
        amountKopecks: 300_000,
        description: "Доставка",
        returnUrl: RETURN,
        expiresAt: Date.now() + 600_000,
        merchantName: "Кофейня",
        ...extra,
      });
      sink.stored.set(paymentId, { sessionId: s.sessionId, method });
      return { paymentId, s };
    };
    const charge = async (methodId: string, extra: Partial<Parameters<ProviderPort["charge"]>[0]> = {}) => {
      const chargeId = extra.chargeId ?? crypto.randomUUID();
      const outcome = await port.charge({ chargeId, methodId, amountKopecks: 120_000, description: "Подписка", returnUrl: RETURN, expiresAt: Date.now() + 600_000, ...extra });
      sink.stored.set(chargeId, { sessionId: outcome.sessionId, method: null });
      return { chargeId, outcome };
    };
    const ledger = (paid: number, refunded: number, refunding: number): RefundLedger => ({ paidKopecks: paid, refundedKopecks: refunded, refundingKopecks: refunding });

    /** A saved card: a session paid with saveMethod, its PAID carrying the method. */
    async function savedCard(profile: ChargeProfile): Promise<string> {
      const { paymentId, s } = await session("CARD", { saveMethod: true });
      await driver.payCard(s, profile);
      const paid = await sink.event(paymentId, "PAID");
      expect(paid.known).toMatchObject({ amountKopecks: 300_000, savedMethod: { method: "CARD", status: "ACTIVE", card: { last4: expect.stringMatching(/^\d{4}$/) } } });
      const methodId = paid.known!.savedMethod!.methodId;
      driver.afterSaved(profile, methodId);
      return methodId;
    }

    test("a card session: the buyer pays on the acquirer's card page, PAID comes with the amount, and a lookup says the same", async () => {
      const { paymentId, s } = await session("CARD");
      // A copy: bun 1.4 writes an asymmetric matcher over the property it matched.
      expect({ ...s }).toMatchObject({ method: "CARD", formAction: expect.stringMatching(/^https?:\/\//) });
      await driver.payCard(s, "approve");
      expect((await sink.event(paymentId, "PAID")).known).toMatchObject({ sessionId: s.sessionId, amountKopecks: 300_000, paidAt: expect.any(String) });
      expect(await port.session(s.sessionId)).toMatchObject({ sessionId: s.sessionId, status: "PAID", capturedKopecks: 300_000, failure: null });
      await expect(port.cancelSession(s.sessionId)).rejects.toMatchObject({ kind: "rejected", reason: "SESSION_ALREADY_PAID" });
    });

    test("a declined card is DECLINED with a reason of the catalogue; a canceled session can no longer be paid", async () => {
      const declined = await session("CARD");
      await driver.payCard(declined.s, "decline");
      const [result] = await sink.of(declined.paymentId, 1);
      expect(result!.known).toMatchObject({ event: "DECLINED" });
      expect(result!.failure?.reason).toMatch(/^(CARD_DECLINED|PROVIDER_DECLINED|INSUFFICIENT_FUNDS|CARD_EXPIRED)$/);
      expect((await port.session(declined.s.sessionId)).status).toBe("DECLINED");

      const canceled = await session("CARD");
      await port.cancelSession(canceled.s.sessionId);
      await port.cancelSession(canceled.s.sessionId);
      expect((await port.session(canceled.s.sessionId)).status).toBe("CANCELED");
    });

    test("3-D Secure on the card page: PAID once the buyer passes it", async () => {
      const { paymentId, s } = await session("CARD");
      await driver.payCard(s, "3ds");
      expect((await sink.event(paymentId, "PAID")).known).toMatchObject({ amountKopecks: 300_000 });
    });

    test("an SBP session: a QR payload and a bank-app link, PAID when the payer pays; SBP takes no hold", async () => {
      const { paymentId, s } = await session("SBP");
      expect({ ...s }).toMatchObject({ method: "SBP", qrPayload: expect.any(String), deepLink: expect.any(String) });
      await driver.paySbp(s, "pay");
      expect((await sink.event(paymentId, "PAID")).known).toMatchObject({ sessionId: s.sessionId, amountKopecks: 300_000 });
      await expect(session("SBP", { hold: true })).rejects.toMatchObject({ kind: "rejected", reason: "HOLD_NOT_FOR_SBP" });
    });

    test("a hold: AUTHORIZED, a partial capture (repeatable, another amount refused), then a refund of the captured part", async () => {
      const { paymentId, s } = await session("CARD", { hold: true });
      await driver.payCard(s, "approve");
      const [held] = await sink.of(paymentId, 1);
      expect(held!.known).toMatchObject({ event: "AUTHORIZED", amountKopecks: 300_000, holdExpiresAt: expect.any(String) });
      expect(await port.session(s.sessionId)).toMatchObject({ status: "AUTHORIZED" });
      expect(await port.capture(s.sessionId, 200_000)).toMatchObject({ status: "PAID", capturedKopecks: 200_000, failure: null });
      expect(await port.capture(s.sessionId, 200_000)).toMatchObject({ status: "PAID", capturedKopecks: 200_000 });
      await expect(port.capture(s.sessionId, 250_000)).rejects.toMatchObject({ kind: "rejected", reason: "HOLD_ALREADY_CAPTURED", params: { capturedKopecks: 200_000 } });
      await expect(port.void(s.sessionId)).rejects.toMatchObject({ kind: "rejected", reason: "HOLD_ALREADY_CAPTURED" });
      expect(await port.refund(s.sessionId, 200_000, crypto.randomUUID(), ledger(200_000, 0, 200_000))).toMatchObject({ status: "SUCCEEDED" });
    });

    test("a void releases a hold, repeatably; a capture after it is refused", async () => {
      const { s } = await session("CARD", { hold: true });
      await driver.payCard(s, "approve");
      expect(await port.void(s.sessionId)).toMatchObject({ status: "VOIDED", reason: "voided_by_merchant" });
      expect(await port.void(s.sessionId)).toMatchObject({ status: "VOIDED" });
      await expect(port.capture(s.sessionId)).rejects.toMatchObject({ kind: "rejected", reason: "HOLD_VOIDED" });
    });

    test("partial refunds add up to the amount; a refund repeated with its id (a lost answer) returns nothing more", async () => {
      for (const method of ["CARD", "SBP"] as const) {
        const { paymentId, s } = await session(method);
        await (method === "CARD" ? driver.payCard(s, "approve") : driver.paySbp(s, "pay"));
        await sink.event(paymentId, "PAID");
        const first = crypto.randomUUID();
        const refundOf = async (amount: number, id: string, l: RefundLedger) => {
          // An SBP refund goes on at the bank for a moment: the caller asks again, as payments' refund sweeper does.
          return eventually(async () => {
            try {
              return await port.refund(s.sessionId, amount, id, l);
            } catch (e) {
              if (e instanceof ProviderError && e.kind === "unavailable") return null;
              throw e;
            }
          }, 15_000);
        };
        expect(await refundOf(100_000, first, ledger(300_000, 0, 100_000))).toMatchObject({ status: "SUCCEEDED" });
        expect(await refundOf(100_000, first, ledger(300_000, 0, 100_000))).toMatchObject({ status: "SUCCEEDED" });
        expect(await refundOf(200_000, crypto.randomUUID(), ledger(300_000, 100_000, 200_000))).toMatchObject({ status: "SUCCEEDED" });
        // All of it is back: one kopeck more is not the buyer's.
        const more = await port.refund(s.sessionId, 1, crypto.randomUUID(), ledger(300_000, 300_000, 1)).catch((e: ProviderError) => e);
        expect(more instanceof ProviderError ? more.kind : more.status).toMatch(/^(rejected|FAILED)$/);
      }
    });

    test("a saved card charged three times; a repeated charge id charges nothing more; revoked, it is refused as METHOD_REVOKED", async () => {
      const methodId = await savedCard("approve");
      expect(await port.savedMethod(methodId)).toMatchObject({ methodId, method: "CARD", status: "ACTIVE" });
      const sessions = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const { outcome } = await charge(methodId);
        expect(outcome).toMatchObject({ status: "PAID", capturedKopecks: 120_000, failure: null });
        sessions.add(outcome.sessionId);
      }
      expect(sessions.size).toBe(3);
      const { chargeId, outcome } = await charge(methodId);
      expect((await charge(methodId, { chargeId })).outcome).toMatchObject({ sessionId: outcome.sessionId, status: "PAID" });
      expect(await port.findCharge(chargeId, methodId)).toMatchObject({ sessionId: outcome.sessionId, status: "PAID" });
      expect(await port.findCharge(crypto.randomUUID(), methodId)).toBeNull();
      expect(await port.revokeMethod(methodId)).toMatchObject({ status: "REVOKED", revokedBy: "MERCHANT" });
      expect(await port.revokeMethod(methodId)).toMatchObject({ status: "REVOKED" });
      expect((await charge(methodId)).outcome).toMatchObject({ status: "DECLINED", failure: { reason: "METHOD_REVOKED" } });
    });

    test("a charge's decline names its reason and the method's end; an authentication the bank asks for completes on its URL", async () => {
      expect((await charge(await savedCard("insufficient_funds"))).outcome.failure).toEqual({ reason: "INSUFFICIENT_FUNDS", params: {} });
      const expired = await charge(await savedCard("expired"));
      expect(expired.outcome).toMatchObject({ status: "DECLINED", failure: { reason: "CARD_EXPIRED" }, savedMethod: { status: "EXPIRED" } });
      const asked = await charge(await savedCard("authenticate"));
      expect({ ...asked.outcome }).toMatchObject({ status: "CHALLENGE", failure: { reason: "AUTHENTICATION_REQUIRED" }, authenticationUrl: expect.stringMatching(/^https?:\/\//) });
      sink.stored.set(asked.chargeId, { sessionId: asked.outcome.sessionId, method: "CARD" });
      await driver.authenticate(asked.outcome.authenticationUrl!);
      expect((await sink.event(asked.chargeId, "PAID")).known).toMatchObject({ sessionId: asked.outcome.sessionId, amountKopecks: 120_000 });
    });

    test("a charge whose answer is lost is unavailable with its outcome unknown; found by its id, and its retry charges nothing more", async () => {
      const methodId = await savedCard("lost_answer");
      const chargeId = crypto.randomUUID();
      const lost = await charge(methodId, { chargeId }).catch((e: ProviderError) => e);
      expect(lost).toMatchObject({ kind: "unavailable", started: true });
      const found = await eventually(() => port.findCharge(chargeId, methodId), 15_000);
      expect(found).toMatchObject({ status: "PAID" });
      expect((await charge(methodId, { chargeId })).outcome).toMatchObject({ sessionId: found.sessionId, status: "PAID" });
      await sink.event(chargeId, "PAID");
      expect((await sink.of(chargeId, 1)).filter((r) => r.known?.event === "PAID")).toHaveLength(1);
    });

    test("an SBP binding consented in the bank app is charged, and the payer's revocation reaches payments as METHOD_REVOKED", async () => {
      const links = await port.createBinding({ bindingId: crypto.randomUUID(), merchantName: "Кофейня", description: "Подписка", returnUrl: RETURN });
      expect({ ...links }).toMatchObject({ method: "SBP", qrPayload: expect.any(String), deepLink: expect.any(String) });
      const methodId = await driver.bind(links, () => sink.read);
      expect(await port.savedMethod(methodId)).toMatchObject({ methodId, method: "SBP", status: "ACTIVE" });
      expect((await charge(methodId)).outcome).toMatchObject({ status: "PAID" });
      await driver.payerRevokes(methodId);
      await eventually(() => sink.read.some((r) => r.known?.event === "METHOD_REVOKED" && r.known.savedMethod.methodId === methodId), 15_000);
      expect((await charge(methodId)).outcome.failure?.reason).toBe("METHOD_REVOKED");
    });

    test("an acquirer nobody answers for: unavailable, and nothing began there", async () => {
      await driver.down();
      try {
        const e = await session("CARD").catch((err: ProviderError) => err);
        expect(e).toMatchObject({ kind: "unavailable", started: false, reason: "PROVIDER_UNAVAILABLE" });
      } finally {
        await driver.up();
      }
      expect((await session("CARD")).s.method).toBe("CARD");
      expect(sink.refused).toEqual([]);
    });
  });
}
