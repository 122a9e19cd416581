/**
 * What tracing costs one request alone (bench/tracing-http.ts): platform's HTTP chain as every
 * service has it (createServiceApp: the request id, the server span while tracing is on, the access
 * line) around a route answering a payment-sized JSON after one await, with no NATS, store or
 * other process in the way. Tracing is on when the environment names an OTLP endpoint, as in a
 * service. Its lines are made whole and dropped (stdout carries only `listening <port>`).
 */
import { commonEnv, createLogger, createServiceApp, parseConfig, startTracing } from "@payaccept/platform";

startTracing("bench-traced-http", parseConfig(commonEnv));
const app = createServiceApp(createLogger("bench-traced-http", "info", { write: () => {} }), {});
app.get("/v1/payments/:id", async (c) => {
  await Promise.resolve();
  return c.json({ id: c.req.param("id"), amount: 100_000, currency: "RUB", status: "CREATED" });
});
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
console.log(`listening ${server.port}`);
