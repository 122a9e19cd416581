import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { BalanceFeed, enterPayoutDetails } from "./balance-fixtures.ts";
import { freePort, Stack, type ShopCreated } from "./harness/stack.ts";

setDefaultTimeout(120_000);

/**
 * The SDK as a merchant gets it: `npm pack` (whose prepack builds dist/), the tarball installed
 * with npm into a project outside the workspace (its dependencies from the registry), and a
 * plain-JavaScript integration run under Node and under Bun against a live stack.
 */
const repo = join(import.meta.dir, "..");
const sdkDir = join(repo, "packages/sdk");
let scratch: string;
let tarball: string;
let files: string[];
let stack: Stack;
let feed: BalanceFeed;

function run(cmd: string[], cwd: string, env: Record<string, string> = {}) {
  const r = Bun.spawnSync(cmd, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const stdout = r.stdout.toString();
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited with ${r.exitCode}\n${stdout}\n${r.stderr.toString()}`);
  return stdout;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "payaccept-sdk-consumer-"));
  const packed = JSON.parse(run(["npm", "pack", "--json", "--pack-destination", scratch], sdkDir)) as { filename: string; files: { path: string }[] }[];
  tarball = join(scratch, packed[0]!.filename);
  files = packed[0]!.files.map((f) => f.path);
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "merchant-shop", private: true, type: "module" }));
  run(["npm", "install", "--no-audit", "--no-fund", tarball], scratch);
  stack = await Stack.start({ services: ["directory", "gateway", "payments", "balance", "paypage", "webhook-dispatcher"] });
  feed = await BalanceFeed.open(stack);
});

afterAll(async () => {
  await stack?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the package", () => {
  test("is installed outside the workspace, from the tarball, with its dependencies from the registry", () => {
    expect(relative(repo, scratch).startsWith("..")).toBe(true);
    const installed = JSON.parse(readFileSync(join(scratch, "node_modules/@payaccept/sdk/package.json"), "utf8"));
    expect(installed.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(JSON.stringify(installed.dependencies ?? {})).not.toContain("workspace:");
    expect(existsSync(join(scratch, "node_modules/zod/package.json"))).toBe(true);
    expect(existsSync(join(scratch, "node_modules/@payaccept/contracts"))).toBe(false);
  });

  test("ships JavaScript and declarations, no TypeScript sources", () => {
    expect(files).toContain("dist/index.js");
    expect(files).toContain("README.md");
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    expect(files.every((f) => /\.(js|d\.ts|json|md)$/.test(f))).toBe(true);
  });

  test("its types resolve for a TypeScript consumer, strictly, without skipping library checks", () => {
    writeFileSync(
      join(scratch, "consumer.ts"),
      `import { ApiError, createClient, verifyWebhook, type Payment, type Refund } from "@payaccept/sdk";
const sdk = createClient({ baseUrl: "https://pay.example.com/api", apiKey: "key" });
export async function flow(): Promise<number> {
  const payment: Payment = await sdk.createPayment({ orderId: "A-1", amountKopecks: 100 }, { idempotencyKey: "k-1" });
  const refund: Refund = await sdk.createRefund(payment.id, { amountKopecks: 50, reason: "returned" });
  // @ts-expect-error a status is a string, never a number: proves Payment is a real type, not any
  const wrong: number = payment.status;
  let total = 0;
  for await (const p of sdk.iteratePayments({ status: ["SUCCESS"] })) total += p.amountKopecks;
  for await (const p of sdk.iteratePayouts()) total -= p.amountKopecks;
  const verified = verifyWebhook("{}", { "x-signature-v2": "" }, "secret");
  if (verified.ok) total += verified.event.amountKopecks;
  return total + refund.amountKopecks + (new ApiError(400, [], undefined, "r", null).statusCode ?? wrong);
}
`,
    );
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ["consumer.ts"],
      }),
    );
    run([join(repo, "node_modules/.bin/tsc"), "-p", scratch], scratch);
  });
});

describe("a merchant's integration in plain JavaScript, against the live stack", () => {
  let n = 0;
  async function integrate(runtime: string[]) {
    const port = await freePort();
    const shop: ShopCreated = await stack.createShop({ name: "SDK consumer", sandbox: true, methods: ["SBP"], webhookUrl: `http://127.0.0.1:${port}/webhooks` });
    // Earlier sales of the account, so that it has money to pay out (sandbox payments never add any).
    await feed.fund(shop.accountId, 50_000);
    await enterPayoutDetails(stack, shop.accountId);
    copyFileSync(join(import.meta.dir, "sdk-package/merchant.mjs"), join(scratch, "merchant.mjs"));
    const orderId = `pkg-${Date.now()}-${++n}`;
    const stdout = run([...runtime, "merchant.mjs"], scratch, {
      PAYACCEPT_URL: stack.gateway,
      PAYACCEPT_API_KEY: shop.apiKey,
      PAYACCEPT_WEBHOOK_SECRET: shop.signingSecret,
      WEBHOOK_PORT: String(port),
      ORDER_ID: orderId,
    });
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(out.created).toMatchObject({ orderId, status: "CREATED", amountKopecks: 25_000, isTest: true, metadata: { cart: "c-1" } });
    expect(out.read).toEqual(out.created);
    expect(out.found).toEqual(out.created);
    expect(out.listed).toEqual([orderId]);
    // Verified by Payaccept-Signature, which every webhook carries and the SDK reads first.
    expect(out.webhook).toEqual({
      ok: true,
      scheme: "signature-set",
      event: { id: out.created.id, orderId, status: "SUCCESS", amountKopecks: 25_000, telegramId: null, metadata: { cart: "c-1" }, test: true },
    });
    expect(out.paid).toMatchObject({ id: out.created.id, status: "SUCCESS" });
    expect(out.refusal).toMatchObject({ statusCode: 409 });
    expect(out.refusal.requestId).toMatch(/\S/);

    expect(out.deliveries).toHaveLength(1);
    expect(out.deliveries[0]).toMatchObject({ paymentId: out.created.id, status: "SUCCESS", result: "delivered", attemptCount: 1 });
    expect(out.deliveries[0].attempts).toMatchObject([{ series: 1, attempt: 1, httpStatus: 200 }]);
    expect(out.resent).toMatchObject({ id: out.deliveries[0].id, paymentId: out.created.id });
    expect(out.testResult).toMatchObject({ httpStatus: 200, error: null });
    expect(out.testWebhook).toMatchObject({ ok: true, scheme: "signature-set", event: { id: out.testResult.id, test: true } });

    expect(out.partial).toMatchObject({ paymentId: out.created.id, amountKopecks: 10_000, reason: "one item returned", status: "SUCCEEDED" });
    expect(out.overRefund).toMatchObject({ statusCode: 409, message: expect.stringContaining("exceeds what is left to refund") });
    expect(out.partlyRefunded).toMatchObject({ status: "SUCCESS", refundedKopecks: 10_000 });
    expect(out.rest).toMatchObject({ amountKopecks: 15_000, status: "SUCCEEDED" });
    expect(out.restAgain).toEqual(out.rest);
    expect(out.refunds.map((r: { id: string }) => r.id)).toEqual([out.partial.id, out.rest.id]);
    expect(out.refundedWebhook).toMatchObject({ ok: true, event: { id: out.created.id, status: "REFUNDED", amountKopecks: 25_000, test: true } });
    expect(out.refunded).toMatchObject({ status: "REFUNDED", refundedKopecks: 25_000 });

    expect(out.payout).toMatchObject({ accountId: shop.accountId, amountKopecks: 20_000, status: "PENDING" });
    expect(out.payoutAgain).toEqual(out.payout);
    expect(out.payoutRefusal.statusCode).toBe(409);
    // The typed error carries the machine reason and its figures, not only the English text.
    expect(out.payoutRefusal).toMatchObject({ code: "PAYOUT_EXCEEDS_AVAILABLE", params: { payoutKopecks: 1_000_000, availableKopecks: 25_000 } });
    expect(out.payoutRefusal.message).toContain("exceeds the available balance 250.00 RUB (25000 kopecks)");
    expect(out.payouts).toEqual([out.second.id, out.payout.id]);
    expect(out.balance).toMatchObject({ availableKopecks: 25_000, frozenKopecks: 0 });
  }

  test("under Node: create, read, list, pay, verify the webhook, typed refusals, deliveries, partial and full refunds, payouts", async () => {
    await integrate(["node"]);
  });

  test("under Bun: the same", async () => {
    await integrate([process.execPath]);
  });
});
