import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { rpcs, SYSTEM_ACTOR } from "@payaccept/contracts";
import { actAs, call, commonEnv, connectBus, createLogger, loadConfig, port, randomToken } from "@payaccept/platform";
import { MissingNatsServer, startNatsServer, type NatsProcess } from "./nats-server.ts";
import { ROOT, SERVICE_NAMES, stackUrls } from "./services.ts";
import { ServiceProcess } from "./supervisor.ts";

/**
 * `bun run dev`: the whole stack on one machine. Starts an embedded nats-server -js unless
 * NATS_URL is set, every service as its own supervised Bun process, and a sandbox demo shop.
 * With DEV_TBANK=fake it also starts the fake T-Bank (tests/fakes/tbank), makes T-Bank payments'
 * default connector and adds a live demo shop whose payments go there (docs/connectors.md).
 */
const cfg = loadConfig({ ...commonEnv, NATS_PORT: port(4222), DEV_TBANK: z.enum(["off", "fake"]).default("off"), FAKE_TBANK_PORT: port(3010) });
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
const fakeTBank = cfg.DEV_TBANK === "fake" ? await startFakeTBank() : undefined;
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
  fakeTBank?.kill("SIGTERM");
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
const liveDemo = fakeTBank ? await ensureLiveDemoShop() : undefined;
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
    ...(liveDemo
      ? [
          "",
          `live demo shop (its payments go to the fake T-Bank at http://127.0.0.1:${cfg.FAKE_TBANK_PORT}/v2)`,
          `  shopId         ${liveDemo.shopId}`,
          `  X-Api-Key      ${liveDemo.apiKey}`,
          `  signing secret ${liveDemo.signingSecret}`,
          `  (saved in ${join(dataDir, "demo-tbank-shop.json")})`,
        ]
      : []),
    "",
    "Ctrl-C stops everything.",
  ].join("\n"),
);

/**
 * The fake T-Bank as its own process, with a terminal payments signs its requests for; payments'
 * T-Bank variables point at it and make it the default connector of live shops.
 */
async function startFakeTBank() {
  const terminal = { key: "PayacceptDEMO", password: randomToken(12) };
  const fakeEnv = {
    ...env,
    FAKE_TBANK_PORT: String(cfg.FAKE_TBANK_PORT),
    FAKE_TBANK_TERMINAL_KEY: terminal.key,
    FAKE_TBANK_PASSWORD: terminal.password,
    FAKE_TBANK_PUBLIC_URL: `http://localhost:${cfg.FAKE_TBANK_PORT}`,
    FAKE_TBANK_NOTIFICATION_URL: env.TBANK_NOTIFICATION_URL!,
  };
  const proc = Bun.spawn([process.execPath, join(ROOT, "tests/fakes/tbank/main.ts")], { env: fakeEnv, stdout: "inherit", stderr: "inherit" });
  const api = `http://127.0.0.1:${cfg.FAKE_TBANK_PORT}/v2`;
  for (let i = 0; i < 100 && !(await fetch(`${api}/GetState`, { method: "POST", body: "{}" }).then(() => true, () => false)); i++) await Bun.sleep(100);
  Object.assign(env, { TBANK_TERMINAL_KEY: terminal.key, TBANK_PASSWORD: terminal.password, TBANK_API_URL: api, PAYMENTS_DEFAULT_CONNECTOR: "tbank" });
  log.info({ api }, "fake T-Bank started");
  return proc;
}

/** A live shop (its payments reach an acquirer: the fake T-Bank), created once and kept in demo-tbank-shop.json. */
async function ensureLiveDemoShop(): Promise<{ shopId: string; apiKey: string; signingSecret: string }> {
  const file = join(dataDir, "demo-tbank-shop.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  const nc = await connectBus(natsUrl!, "launcher", log, cfg);
  actAs(nc, SYSTEM_ACTOR);
  try {
    const shop = await call(nc, rpcs.directory.createShop, { name: "Demo shop (T-Bank)", sandbox: false, accountId: demo.accountId }, 10000);
    writeFileSync(file, JSON.stringify(shop, null, 2) + "\n", { mode: 0o600 });
    return shop;
  } finally {
    await nc.close();
  }
}

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
