/**
 * Head-of-line isolation under load, on a real stack with production timing (5 s timeout). Shop A's
 * endpoint hangs 10 s on every call and gets A_EVENTS events at once; then shop B, a healthy
 * endpoint, gets one event every 200 ms for 60 s. Prints B's latency (publish → arrival), how far A
 * got, the deferrals it cost and the dispatcher's CPU time.
 * Run by hand: `bun services/webhook-dispatcher/bench/head-of-line.ts [aEvents]`.
 */
import { Stack } from "../../../tests/harness/stack.ts";
import { paymentEvent, publishPaymentEvent, putShop } from "../test-support/fixtures.ts";
import { startReceiver } from "../test-support/receiver.ts";

const A_EVENTS = Number(process.argv[2] ?? 5000);
const B_EVERY_MS = 200;
const B_EVENTS = 300;

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;

const stack = await Stack.start({ services: ["webhook-dispatcher"], env: { LOG_LEVEL: "warn" } });
const hanging = startReceiver(async () => {
  await Bun.sleep(10_000);
  return new Response("too late");
});
const publishedAt = new Map<string, number>();
const latencies: number[] = [];
const healthy = startReceiver((request) => {
  const sent = publishedAt.get(JSON.parse(request.body).id);
  if (sent !== undefined) latencies.push(request.at - sent);
  return new Response("ok");
});
try {
  const shopA = await putShop(stack.nc, { webhookUrl: hanging.url });
  const shopB = await putShop(stack.nc, { webhookUrl: healthy.url });
  const started = performance.now();
  await Promise.all(Array.from({ length: A_EVENTS }, () => publishPaymentEvent(stack.nc, paymentEvent(shopA))));
  console.log(`published ${A_EVENTS} events of the hanging shop in ${Math.round(performance.now() - started)} ms`);

  for (let i = 0; i < B_EVENTS; i++) {
    const event = paymentEvent(shopB);
    publishedAt.set(event.paymentId, Date.now());
    await publishPaymentEvent(stack.nc, event);
    await Bun.sleep(B_EVERY_MS);
  }
  await Bun.sleep(2000);

  const metrics = await (await fetch(`${stack.url("webhook-dispatcher")}/metrics`)).text();
  const describe = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `median ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms, max ${sorted.at(-1)} ms`;
  };
  // The first seconds include taking in the hanging shop's burst, which every event queues behind.
  const settled = latencies.slice(Math.ceil(5000 / B_EVERY_MS));
  console.log(`healthy shop: ${latencies.length}/${B_EVENTS} arrived; latency ${describe(latencies)}; after the first 5 s ${describe(settled)}`);
  console.log(
    `hanging shop: ${hanging.requests.length} attempts received; deferrals ${metric(metrics, "webhook_deferrals_total")}; ` +
      `dispatcher CPU ${metric(metrics, "process_cpu_seconds_total").toFixed(1)} s over ${Math.round((performance.now() - started) / 1000)} s`,
  );
} finally {
  hanging.stop();
  healthy.stop();
  await stack.stop();
}
