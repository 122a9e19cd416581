import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { rpcs, SYSTEM_ACTOR } from "@payaccept/contracts";
import { actAs, call, commonEnv, connectBus, createLogger, loadConfig, port, randomToken } from "@payaccept/platform";
import { MissingNatsServer, startNatsServer, type NatsProcess } from "./nats-server.ts";
import { SERVICE_NAMES, stackUrls } from "./services.ts";
import { ServiceProcess } from "./supervisor.ts";

/**
 * `bun run dev`: the whole stack on one machine. Starts an embedded nats-server -js unless
 * NATS_URL is set, every service as its own supervised Bun process, and a sandbox demo shop.
 */
const cfg = loadConfig({ ...commonEnv, NATS_PORT: port(4222) });
const log = createLogger("launcher", cfg.LOG_LEVEL);
const dataDir = resolve(cfg.DATA_DIR);
mkdirSync(dataDir, { recursive: true });

let nats: NatsProcess | undefined;
let natsUrl = cfg.NATS_URL;
if (!natsUrl) {
  try {
    nats = await startNatsServer({ port: cfg.NATS_PORT, dataDir, logFile: join(dataDir, "nats-server.log") });
  } catch (e) {
    console.error(e instanceof MissingNatsServer ? e.message : `cannot start nats-server: ${(e as Error).message}`);
    process.exit(1);
  }
  natsUrl = nats.url;
  log.info({ natsUrl, store: join(dataDir, "jetstream") }, "embedded nats-server started");
}

const base = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, NATS_URL: natsUrl };
const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: "1", ...base, ...stackUrls(base) };
const services = SERVICE_NAMES.map(
  (name) =>
    new ServiceProcess(name, env, {
      restart: true,
      log: (event, fields) => log.warn(fields, event),
    }),
);

let stopping = false;
async function stopAll(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "stopping the stack");
  await Promise.all(services.map((s) => s.stop("SIGTERM")));
  await nats?.stop();
  process.exit(0);
}
process.on("SIGINT", () => void stopAll("SIGINT"));
process.on("SIGTERM", () => void stopAll("SIGTERM"));

for (const s of services) s.start();
try {
  await Promise.all(services.map((s) => s.waitReady(60000)));
} catch (e) {
  log.error({ err: (e as Error).message }, "a service did not become ready");
  await stopAll("startup failure");
}

const DEMO_EMAIL = "demo@payaccept.local";
const DemoShop = z.object({
  accountId: z.string(),
  shopId: z.string(),
  apiKey: z.string(),
  signingSecret: z.string(),
  dashboardEmail: z.string(),
  dashboardPassword: z.string(),
});
const demo = await ensureDemoShop();
const urls = stackUrls(env);
console.log(
  [
    "",
    "payaccept stack is up",
    `  merchant API   http://localhost:${services.find((s) => s.name === "gateway")!.port}/api`,
    `  payment page   ${urls.PUBLIC_PAYPAGE_URL}`,
    `  dashboard      ${urls.PUBLIC_DASHBOARD_URL}`,
    `  acquirer       ${urls.ACQUIRER_PUBLIC_URL}`,
    `  NATS           ${natsUrl}`,
    "",
    "sandbox demo shop",
    `  shopId         ${demo.shopId}`,
    `  X-Api-Key      ${demo.apiKey}`,
    `  signing secret ${demo.signingSecret}`,
    `  dashboard      ${demo.dashboardEmail} / ${demo.dashboardPassword}`,
    `  (saved in ${join(dataDir, "demo-shop.json")})`,
    "",
    "Ctrl-C stops everything.",
  ].join("\n"),
);

/** Creates the sandbox demo shop and its dashboard user on the first run; later runs print the saved ones. */
async function ensureDemoShop(): Promise<z.infer<typeof DemoShop>> {
  const file = join(dataDir, "demo-shop.json");
  if (existsSync(file)) {
    const saved = DemoShop.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (saved.success) return saved.data;
  }
  const nc = await connectBus(natsUrl!, "launcher", log, cfg);
  // The demo shop and its key are the platform's doing, and the audit log says so.
  actAs(nc, SYSTEM_ACTOR);
  try {
    const shop = await call(nc, rpcs.directory.createShop, { name: "Demo shop", sandbox: true }, 10000);
    const dashboardPassword = randomToken(12);
    const user = await call(
      nc,
      rpcs.dashboard.createMerchant,
      { email: DEMO_EMAIL, password: dashboardPassword, accountId: shop.accountId },
      10000,
    );
    const demo = { ...shop, dashboardEmail: user.email, dashboardPassword };
    writeFileSync(file, JSON.stringify(demo, null, 2) + "\n", { mode: 0o600 });
    return demo;
  } finally {
    await nc.close();
  }
}
