// A merchant's integration, as it would be written outside this repository: plain JavaScript
// that imports the installed @payaccept/sdk and runs unchanged under Node and Bun.
// tests/sdk-package.test.ts runs it against a live stack and checks the JSON it prints last.
import { createServer } from "node:http";
import { ApiError, createClient, verifyWebhook } from "@payaccept/sdk";

const env = process.env;
const secret = env.PAYACCEPT_WEBHOOK_SECRET;
const sdk = createClient({ baseUrl: env.PAYACCEPT_URL, apiKey: env.PAYACCEPT_API_KEY });

/** Every webhook that arrived, as verifyWebhook judged it over the raw body. */
const webhooks = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const result = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
    webhooks.push(result);
    res.writeHead(result.ok ? 200 : 401).end();
  });
});
await new Promise((resolve) => receiver.listen(Number(env.WEBHOOK_PORT), "127.0.0.1", resolve));

async function until(what, find) {
  for (let i = 0; i < 300; i++) {
    const found = await find();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}
const verified = (id, status) => webhooks.find((w) => w.ok && w.event.id === id && w.event.status === status);

/** The buyer on the hosted payment page of a sandbox payment: picks SBP, then the SUCCESS outcome. */
async function payAsBuyer(payUrl) {
  const cookies = new Map();
  const visit = async (url, form) => {
    const headers = { Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (form) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const res = await fetch(url, { method: form ? "POST" : "GET", headers, body: form && new URLSearchParams(form), redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      cookies.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
    }
    return res.text();
  };
  const csrf = async () => /name="csrf" value="([0-9a-f]{64})"/.exec(await visit(payUrl))[1];
  await visit(`${payUrl}/start`, { csrf: await csrf(), method: "SBP" });
  await visit(`${payUrl}/sandbox`, { csrf: await csrf(), outcome: "SUCCESS" });
}

const orderId = env.ORDER_ID;
const created = await sdk.createPayment({ orderId, amountKopecks: 25_000, description: "Plan, 1 month", metadata: { cart: "c-1" } });
const read = await sdk.getPayment(created.id);
const found = await sdk.findPaymentByOrderId(orderId);
const listed = [];
for await (const p of sdk.iteratePayments({ from: created.createdAt })) listed.push(p.orderId);

await payAsBuyer(created.payUrl);
const webhook = await until("the SUCCESS webhook", () => verified(created.id, "SUCCESS"));
const paid = await sdk.getPayment(created.id);

let refusal;
try {
  await sdk.cancelPayment(created.id);
} catch (e) {
  refusal = e instanceof ApiError ? { statusCode: e.statusCode, message: e.message, requestId: e.requestId } : String(e);
}

// The delivery log, a resend of the SUCCESS webhook, and a test webhook: each arrives verified.
const deliveries = (await sdk.listPaymentWebhooks(created.id)).items;
const resent = await sdk.resendWebhookDelivery(deliveries[0].id);
await until("the resent webhook", () => webhooks.filter((w) => w.ok && w.event.id === created.id && w.event.status === "SUCCESS").length === 2);
const testResult = await sdk.sendTestWebhook();
const testWebhook = webhooks.find((w) => w.ok && w.event.id === testResult.id);

// Refunds: part of it, a refusal for more than is left, then the rest (no amount).
const partial = await sdk.createRefund(created.id, { amountKopecks: 10_000, reason: "one item returned" });
let overRefund;
try {
  await sdk.createRefund(created.id, { amountKopecks: 20_000 });
} catch (e) {
  overRefund = { statusCode: e.statusCode, message: e.message };
}
const partlyRefunded = await sdk.getPayment(created.id);
const rest = await sdk.createRefund(created.id, {}, { idempotencyKey: `refund-rest-${orderId}` });
const restAgain = await sdk.createRefund(created.id, {}, { idempotencyKey: `refund-rest-${orderId}` });
const refunds = (await sdk.listRefunds(created.id)).items;
const refundedWebhook = await until("the REFUNDED webhook", () => verified(created.id, "REFUNDED"));
const refunded = await sdk.getPayment(created.id);

// Payouts: one with the merchant's own key, sent twice (one payout), one too large, then every page.
const payoutKey = `payout-${orderId}`;
const payout = await sdk.createPayout({ amountKopecks: 20_000 }, { idempotencyKey: payoutKey });
const payoutAgain = await sdk.createPayout({ amountKopecks: 20_000 }, { idempotencyKey: payoutKey });
const second = await sdk.createPayout({ amountKopecks: 5_000 });
let payoutRefusal;
try {
  await sdk.createPayout({ amountKopecks: 1_000_000 });
} catch (e) {
  payoutRefusal = { statusCode: e.statusCode, code: e.code, params: e.params, message: e.message };
}
const payouts = [];
for await (const p of sdk.iteratePayouts({ limit: 1 })) payouts.push(p.id);

receiver.close();
console.log(
  JSON.stringify({
    created, read, found, listed, webhook, paid, refusal,
    deliveries, resent, testResult, testWebhook,
    partial, overRefund, partlyRefunded, rest, restAgain, refunds, refundedWebhook, refunded,
    payout, payoutAgain, second, payoutRefusal, payouts,
    balance: await sdk.getBalance(),
  }),
);
