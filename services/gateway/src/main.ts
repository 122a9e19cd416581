import { createServiceApp, DirectoryCache, idempotencyBucket, loadConfig, openDirectoryBucket, openIdempotencyBucket, startService } from "@payaccept/platform";
import { apiFacts, gatewayEnv, limitsFitReplicas, MAX_BODY_BYTES } from "./config.ts";
import { keyDirectory } from "./http/key-directory.ts";
import { IdempotencyClaims } from "./idempotency/claims.ts";
import { paymentReads, registerReadModelGauge } from "./metrics.ts";
import { SlidingWindowLimiter } from "./http/rate-limiter.ts";
import { followPaymentChanges, PaymentViews } from "./reads/payment-views.ts";
import { apiRoutes } from "./routes/api.ts";
import { openApiRoutes } from "./routes/openapi.ts";

/** Keys tracked per limiter (≈100 bytes each). */
const RATE_LIMIT_MAX_KEYS = 100_000;

const svc = startService("gateway", loadConfig(gatewayEnv, process.env, limitsFitReplicas));
const { cfg, log } = svc;

const nc = await svc.bus();
const directoryBucket = await openDirectoryBucket(nc, { log });
const directory = new DirectoryCache(directoryBucket, log, nc);
svc.onClose("directory watch", () => directory.stop());
await directory.ready;
const claims = new IdempotencyClaims(await openIdempotencyBucket(nc, cfg.NATS_REQUEST_TIMEOUT_MS, log), undefined, () =>
  idempotencyBucket(nc, cfg.NATS_REQUEST_TIMEOUT_MS),
);

// Subscribed before the API is served; it keeps nothing until payments' first notice is heard.
const readFrom = { memory: paymentReads.labels("memory"), payments: paymentReads.labels("payments") };
const views = new PaymentViews({
  maxEntries: cfg.GATEWAY_READ_MODEL_SIZE,
  maxAgeMs: cfg.GATEWAY_READ_MODEL_MAX_AGE,
  holdMs: cfg.GATEWAY_READ_MODEL_HOLD,
  counted: (source) => readFrom[source].inc(),
});
registerReadModelGauge(() => views.on);
if (cfg.GATEWAY_READ_MODEL_SIZE > 0) svc.onClose("payment changes", followPaymentChanges(nc, views, log, cfg.NATS_REQUEST_TIMEOUT_MS));
const perMinute = (limit: number) =>
  new SlidingWindowLimiter(limit, { windowMs: 60_000, maxKeys: RATE_LIMIT_MAX_KEYS, replicas: cfg.GATEWAY_REPLICAS });
const app = createServiceApp(log, svc.readiness(), { inboundTrace: "link" });
app.route("/api", openApiRoutes(apiFacts(cfg)));
app.route(
  "/api",
  apiRoutes({
    nc,
    directory: keyDirectory(directory, cfg.NATS_REQUEST_TIMEOUT_MS),
    limiters: { perIp: perMinute(cfg.RATE_LIMIT_PER_IP), perMethod: perMinute(cfg.RATE_LIMIT_PER_METHOD), balance: perMinute(cfg.RATE_LIMIT_BALANCE) },
    trustedProxies: cfg.TRUSTED_PROXIES,
    maxBodyBytes: MAX_BODY_BYTES,
    rpcTimeoutMs: cfg.NATS_REQUEST_TIMEOUT_MS,
    slowCallTimeoutMs: cfg.GATEWAY_SLOW_CALL_TIMEOUT,
    claims,
    views,
  }),
);
// Bun's own body limit (128 MiB) would answer a larger announced body with a bare 413; lifted so
// jsonBody answers every oversized body in the Error shape (it reads at most MAX_BODY_BYTES).
const server = svc.listen({
  port: cfg.GATEWAY_PORT,
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  fetch: (req, server) => app.fetch(req, { server }),
});
log.info({ port: server.port }, "gateway listening");
