import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { DomainError, Payout, rpcs, WebhookBody } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import { verifyWebhook } from "@payaccept/sdk";
import { readBalance } from "../services/balance/src/balance.ts";
import type { Payer } from "../services/balance/src/payment-orders.ts";
import { createPayout, getPayout } from "../services/balance/src/payouts.ts";
import { SberGrantRefused, sberApi, SberUnauthorized, SberUnavailable, type SberApi } from "../services/balance/src/rails/sber/sber-api.ts";
import { runSberRail, SBER_RAIL } from "../services/balance/src/rails/sber/sber-rail.ts";
import type { LedgerStore } from "../services/balance/src/store/ledger-store.ts";
import { detailsFor, ENGINES, fundAccount, ledgerPerTest, PAYEE, thrownBy } from "../services/balance/src/testing.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { BalanceFeed, enterPayoutDetails } from "./balance-fixtures.ts";
import { mtlsFiles, pem, type MtlsFiles } from "./fakes/sber/certificates.ts";
import { FakeSber } from "./fakes/sber/fake-sber.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";

setDefaultTimeout(180_000);

/**
 * Payouts through Sber's API for payment orders, against a fake of the bank written from its
 * documentation (tests/fakes/sber: mutual TLS, rotating OAuth tokens, drafts a signing person
 * signs, the state model). The rail on a real ledger on both engines; then the stack: a payout
 * through the API goes to the bank by itself and comes back PAID with its signed webhooks.
 */

/** The platform's own account at Sberbank: the bank debits it, so it must be the company's own there. */
const SBER_PAYER: Payer = {
  name: "ООО «Платёжный агрегатор»",
  inn: "7736207543",
  kpp: "773601001",
  account: "40702810638000004242",
  bik: "044525225",
  bankName: "ПАО Сбербанк",
  correspondentAccount: "30101810400000000225",
};
const CLIENT = { clientId: "payaccept-client", clientSecret: "client-secret-1" };
const SEED = "refresh-token-from-sign-in";
const PURPOSE = "Перечисление денежных средств, принятых в пользу клиента, выплата {reference} от {date}. Без налога (НДС)";
const TIMEOUT_MS = 1_000;

let tls: MtlsFiles;
let fake: FakeSber;
let api: SberApi;

beforeAll(async () => {
  tls = await mtlsFiles();
  fake = new FakeSber({ tls, ...CLIENT, refreshToken: SEED, accounts: [{ account: SBER_PAYER.account, bik: SBER_PAYER.bik, corrAccount: SBER_PAYER.correspondentAccount, inn: SBER_PAYER.inn }] });
  api = sberApi({ apiUrl: fake.url, ...CLIENT, tls: { cert: pem(tls.clientCert), key: pem(tls.clientKey), ca: pem(tls.ca) }, timeoutMs: TIMEOUT_MS });
});
afterAll(async () => {
  await fake?.stop();
  rmSync(tls.dir, { recursive: true, force: true });
});

const posts = () => fake.calls.filter((c) => c.method === "POST" && c.path === "/fintech/api/v1/payments").length;
const refreshes = () => fake.calls.filter((c) => c.path === "/ic/sso/api/v2/oauth/token").length;

describe("the bank's door", () => {
  test("without the client certificate the TLS handshake fails; a wrong secret gets no token", async () => {
    const noCert = sberApi({ apiUrl: fake.url, ...CLIENT, tls: { cert: "", key: "", ca: pem(tls.ca) }, timeoutMs: TIMEOUT_MS });
    expect(await thrownBy(() => noCert.refresh(SEED, Date.now()))).toBeInstanceOf(SberUnavailable);
    const wrongSecret = sberApi({ apiUrl: fake.url, clientId: CLIENT.clientId, clientSecret: "guess", tls: { cert: pem(tls.clientCert), key: pem(tls.clientKey), ca: pem(tls.ca) }, timeoutMs: TIMEOUT_MS });
    expect(await thrownBy(() => wrongSecret.refresh(SEED, Date.now()))).toBeInstanceOf(SberGrantRefused);
  });
});

describe.each(ENGINES)("the Sber rail on the ledger (%s)", (engine) => {
  const ledger = ledgerPerTest(engine);
  const settings = { payer: SBER_PAYER, purposeTemplate: PURPOSE };
  const logged: string[] = [];
  const log = { info: () => {}, warn: (_o: unknown, msg: string) => void logged.push(msg), error: () => {} } as never;
  const deps = (over: Partial<Parameters<typeof runSberRail>[1]> = {}) => ({ api, detailsOf: detailsFor({ company: { details: PAYEE } }), settings, now: Date.now, log, leaseMs: 20 * TIMEOUT_MS, ...over });
  const railPass = (over?: Partial<Parameters<typeof runSberRail>[1]>) => runSberRail(ledger.store, deps(over));
  const available = async (store: LedgerStore) => (await readBalance(store, "company", Date.now(), 12)).availableKopecks;
  const payout = async (amountKopecks: number) => {
    await ledger.store.seedBankTokens(SBER_RAIL, fake.currentRefreshToken, sha256Hex(fake.currentRefreshToken), Date.now());
    await fundAccount(ledger.store, "company", 1_000_000, Date.now());
    return (await createPayout(ledger.store, { accountId: "company", amountKopecks }, Date.now(), 12)).payout.payout;
  };
  const status = async (id: string) => getPayout(ledger.store, "company", id);

  test("a payout goes as a draft with every field of its order; signed, then executed, it is PAID, once", async () => {
    const p = await payout(150_050);
    expect(await railPass()).toEqual({ sent: 1, submitted: 1, paid: 0, failed: 0 });
    const sent = await status(p.id);
    expect(sent).toMatchObject({ status: "SENT", order: { rail: "sber", account: PAYEE.payout.account } });
    const doc = fake.documents.get(p.id)!;
    expect(doc.bankStatus).toBe("CREATED");
    expect(doc.payment).toEqual({
      externalId: p.id,
      number: String(sent.order!.number),
      date: sent.order!.date,
      amount: 1500.5,
      operationCode: "01",
      priority: "5",
      purpose: sent.order!.purpose,
      payerName: SBER_PAYER.name,
      payerInn: SBER_PAYER.inn,
      payerKpp: SBER_PAYER.kpp,
      payerAccount: SBER_PAYER.account,
      payerBankBic: SBER_PAYER.bik,
      payerBankCorrAccount: SBER_PAYER.correspondentAccount,
      payeeName: PAYEE.payout.recipientName,
      payeeInn: PAYEE.inn,
      payeeKpp: PAYEE.kpp,
      payeeAccount: PAYEE.payout.account,
      payeeBankBic: PAYEE.payout.bik,
      payeeBankCorrAccount: PAYEE.payout.correspondentAccount,
    });
    expect(sent.order!.purpose).toContain(sent.order!.reference);
    expect(sent.order!.purpose).toContain("Без налога (НДС)");

    // A draft waiting for its signature, then taken by the bank: still on the way.
    expect(await railPass()).toEqual({ sent: 0, submitted: 0, paid: 0, failed: 0 });
    fake.sign(p.id);
    await railPass();
    expect((await status(p.id)).status).toBe("SENT");
    fake.execute(p.id);
    expect(await railPass()).toEqual({ sent: 0, submitted: 0, paid: 1, failed: 0 });
    expect(await status(p.id)).toMatchObject({ status: "PAID", paidAt: expect.any(String) });
    expect((await ledger.store.unpublishedPayoutEvents(10)).map((e) => e.status)).toEqual(["PENDING", "SENT", "PAID"]);
    expect(await railPass()).toEqual({ sent: 0, submitted: 0, paid: 0, failed: 0 });
    expect(posts()).toBeGreaterThanOrEqual(1);
  });

  test("a refused order gives the money back on the balance once, with the bank's words", async () => {
    const p = await payout(40_000);
    const before = await available(ledger.store);
    await railPass();
    fake.refuse(p.id, "REFUSEDBYBANK", "Счёт получателя закрыт");
    expect(await railPass()).toMatchObject({ failed: 1 });
    expect(await status(p.id)).toMatchObject({ status: "FAILED", failureReason: "REFUSEDBYBANK: Счёт получателя закрыт" });
    expect(await available(ledger.store)).toBe(before + 40_000);
    expect(await railPass()).toMatchObject({ failed: 0 });
    expect(await available(ledger.store)).toBe(before + 40_000);
  });

  test("an order the bank took but did not answer is asked about, never made twice; one that failed with a 5xx is made on the next pass", async () => {
    const slow = await payout(10_000);
    const postsBefore = posts();
    fake.failNext("/fintech/api/v1/payments", "slow", 1, TIMEOUT_MS + 300);
    expect(await thrownBy(() => railPass())).toBeInstanceOf(SberUnavailable);
    await Bun.sleep(400);
    expect(fake.documents.has(slow.id)).toBe(true);
    expect(await railPass()).toMatchObject({ submitted: 1 });
    expect(posts()).toBe(postsBefore + 1);

    const failed = await createPayout(ledger.store, { accountId: "company", amountKopecks: 10_000 }, Date.now(), 12);
    fake.failNext("/fintech/api/v1/payments", "5xx");
    expect(await thrownBy(() => railPass())).toBeInstanceOf(SberUnavailable);
    expect(fake.documents.has(failed.payout.payout.id)).toBe(false);
    expect((await status(failed.payout.payout.id)).status).toBe("SENT");
    expect(await railPass()).toMatchObject({ submitted: 1 });
    expect(fake.documents.get(failed.payout.payout.id)?.bankStatus).toBe("CREATED");
  });

  test("the bank's refusal of the order itself fails the payout with its words and gives the money back", async () => {
    const p = await payout(20_000);
    const before = await available(ledger.store);
    // A payer account that is not the company's own at the bank (a configuration mistake).
    const other = { ...SBER_PAYER, account: "40702810938000000001" };
    expect(await railPass({ settings: { payer: other, purposeTemplate: PURPOSE } })).toMatchObject({ sent: 1, failed: 1 });
    expect(await status(p.id)).toMatchObject({ status: "FAILED", failureReason: "WORKFLOW_FAULT: Счёт плательщика не принадлежит организации" });
    expect(await available(ledger.store)).toBe(before + 20_000);
    expect(fake.documents.has(p.id)).toBe(false);
  });

  test("tokens: refreshed before they end, the rotated one kept, a restart's old seed ignored, a refused one sends nothing", async () => {
    await payout(1_000);
    const seeded = fake.currentRefreshToken;
    const first = refreshes();
    await railPass();
    expect(refreshes()).toBe(first + 1);
    const kept = (await ledger.store.bankTokens(SBER_RAIL))!;
    expect(kept.refreshToken).toBe(fake.currentRefreshToken);
    expect(kept.refreshToken).not.toBe(seeded);
    await railPass();
    expect(refreshes()).toBe(first + 1);

    // The bank stops taking the access token: the pass ends, the next one refreshes and goes on.
    fake.forgetAccessTokens();
    expect(await thrownBy(() => railPass())).toBeInstanceOf(SberUnauthorized);
    await railPass();
    expect(refreshes()).toBe(first + 2);

    // A restart with the same SBER_REFRESH_TOKEN keeps the rotated token; a new value replaces it.
    await ledger.store.seedBankTokens(SBER_RAIL, seeded, sha256Hex(seeded), Date.now());
    expect((await ledger.store.bankTokens(SBER_RAIL))!.refreshToken).toBe(fake.currentRefreshToken);
    await ledger.store.seedBankTokens(SBER_RAIL, "revoked-token", sha256Hex("revoked-token"), Date.now());
    const waiting = await createPayout(ledger.store, { accountId: "company", amountKopecks: 1_000 }, Date.now(), 12);
    expect(await thrownBy(() => railPass())).toBeInstanceOf(SberGrantRefused);
    expect((await status(waiting.payout.payout.id)).status).toBe("PENDING");
  });

  test("a pass that outlived its lease gives back only its own: another replica's lease taken since stays", async () => {
    await ledger.store.seedBankTokens(SBER_RAIL, fake.currentRefreshToken, sha256Hex(fake.currentRefreshToken), Date.now());
    const t0 = Date.now();
    expect(await ledger.store.leaseRail(SBER_RAIL, t0, t0 + 1_000)).toBe(true);
    // The first lease ran out; a second replica takes the rail.
    expect(await ledger.store.leaseRail(SBER_RAIL, t0 + 2_000, t0 + 12_000)).toBe(true);
    await ledger.store.releaseRail(SBER_RAIL, t0 + 1_000);
    expect(await ledger.store.leaseRail(SBER_RAIL, t0 + 3_000, t0 + 13_000)).toBe(false);
    await ledger.store.releaseRail(SBER_RAIL, t0 + 12_000);
    expect(await ledger.store.leaseRail(SBER_RAIL, t0 + 3_000, t0 + 13_000)).toBe(true);
  });

  test("two replicas at once: one works the rail, the other finds it taken", async () => {
    await payout(5_000);
    // The first pass, holding the rail, reaches the bank and waits there until the second has tried the rail.
    let reachedBank!: () => void;
    const reached = new Promise<void>((resolve) => (reachedBank = resolve));
    let secondTried!: () => void;
    const gate = new Promise<void>((resolve) => (secondTried = resolve));
    const held = new Proxy(api, {
      get: (target, prop) =>
        (...args: unknown[]) => {
          reachedBank();
          return gate.then(() => (target[prop as keyof SberApi] as (...a: unknown[]) => unknown)(...args));
        },
    });
    const first = railPass({ api: held });
    await reached;
    const second = await railPass();
    secondTried();
    expect(second).toBeNull();
    expect(await first).toMatchObject({ sent: 1 });
  });
});

describe("payouts through Sber's API on the stack", () => {
  let stack: Stack;
  let receiver: Receiver;
  let shop: ShopCreated;

  beforeAll(async () => {
    receiver = startReceiver();
    stack = await Stack.start({
      services: ["directory", "balance", "gateway", "webhook-dispatcher"],
      env: {
        PAYOUT_RAIL: "sber",
        PAYOUT_PAYER_NAME: SBER_PAYER.name,
        PAYOUT_PAYER_INN: SBER_PAYER.inn,
        PAYOUT_PAYER_KPP: SBER_PAYER.kpp,
        PAYOUT_PAYER_ACCOUNT: SBER_PAYER.account,
        PAYOUT_PAYER_BIK: SBER_PAYER.bik,
        PAYOUT_PAYER_CORR_ACCOUNT: SBER_PAYER.correspondentAccount,
        PAYOUT_PAYER_BANK: SBER_PAYER.bankName,
        SBER_API_URL: fake.url,
        SBER_CLIENT_ID: CLIENT.clientId,
        SBER_CLIENT_SECRET: CLIENT.clientSecret,
        SBER_REFRESH_TOKEN: fake.currentRefreshToken,
        SBER_TLS_CERT: tls.clientCert,
        SBER_TLS_KEY: tls.clientKey,
        SBER_TLS_CA: tls.ca,
        SBER_POLL_INTERVAL: "300ms",
        SBER_TIMEOUT: "2s",
        PAYOUT_ACCOUNT_HOLD: "1s",
        PAYOUT_OUTBOX_SWEEP: "500ms",
      },
    });
    shop = await stack.createShop({ name: "Sber payout shop", webhookUrl: receiver.url });
    await enterPayoutDetails(stack, shop.accountId);
    await (await BalanceFeed.open(stack)).fund(shop.accountId, 1_000_000);
  });
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  test("a payout through the API goes to the bank by itself; executed there, it is PAID with its signed webhooks; no exchange file is made", async () => {
    await eventually(async () => (await stack.call(rpcs.directory.getAccountDetails, { accountId: shop.accountId })).payoutsHeldUntil === null, 20_000);
    const made = await stack.api(shop.apiKey, "/v1/payouts", { method: "POST", json: { amountKopecks: 77_700 } });
    expect(made.status).toBe(201);
    const { id } = Payout.parse(await made.json());
    await eventually(() => fake.documents.has(id), 30_000);
    const sent = Payout.parse(await (await stack.api(shop.apiKey, `/v1/payouts/${id}`)).json());
    expect(sent).toMatchObject({ status: "SENT", order: { rail: "sber", account: PAYEE.payout.account } });
    expect(fake.documents.get(id)!.payment).toMatchObject({ externalId: id, amount: 777, payeeAccount: PAYEE.payout.account, payerAccount: SBER_PAYER.account });

    fake.sign(id);
    fake.execute(id);
    await eventually(async () => Payout.parse(await (await stack.api(shop.apiKey, `/v1/payouts/${id}`)).json()).status === "PAID", 30_000);
    const statuses = await eventually(() => {
      const got = receiver.requests.filter((r) => WebhookBody.parse(JSON.parse(r.body)).id === id);
      return got.length >= 3 ? got : undefined;
    }, 30_000);
    for (const r of statuses) expect(verifyWebhook(r.body, r.headers, shop.signingSecret).ok).toBe(true);
    expect(statuses.map((r) => WebhookBody.parse(JSON.parse(r.body)).status).sort()).toEqual(["PAYOUT_PAID", "PAYOUT_PENDING", "PAYOUT_SENT"]);

    const refused = await thrownBy(() => stack.call(rpcs.balance.exportPayouts, { limit: 100 }));
    expect((refused as DomainError).reason).toBe("PAYOUT_RAIL_NOT_FILES");
  });
});
