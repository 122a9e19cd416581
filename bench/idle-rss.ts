/**
 * Each service's idle memory, measured as `bun run bench` measures it (VmRSS after start and
 * settling, before any load) without the load runs: `bun bench/idle-rss.ts [--postgres]
 * [--settle 5000]`. The stack is tests/harness/stack.ts's, so SERVICES_EXECUTABLE=.build/payaccept
 * measures the compiled executable (`bun run build:services` first) instead of the sources.
 */
import { parseArgs } from "node:util";
import { Stack } from "../tests/harness/stack.ts";
import { SERVICE_NAMES } from "../infra/launcher/services.ts";
import { rssMiB } from "./lib/proc.ts";
import { rssTable } from "./lib/report.ts";
import { startBareHttp } from "./lib/ceilings.ts";

const { values: args } = parseArgs({ options: { postgres: { type: "boolean", default: false }, settle: { type: "string", default: "5000" } } });

const stack = await Stack.start({ postgres: args.postgres });
try {
  await Bun.sleep(Number(args.settle));
  const rss = Object.fromEntries(SERVICE_NAMES.map((n) => [n, rssMiB(stack.service(n).proc!.pid)]));
  const bare = await startBareHttp();
  await Bun.sleep(1000);
  const bareMiB = rssMiB(bare.pids["bare-http"]!);
  await bare.stop();
  const from = process.env.SERVICES_EXECUTABLE ? `the executable ${process.env.SERVICES_EXECUTABLE}` : "sources";
  console.log(`idle RSS, ${args.postgres ? "rows on PostgreSQL" : "SQLite"}, services from ${from}, ${Number(args.settle) / 1000} s after ready, Bun ${Bun.version}\n`);
  console.log(rssTable(rss, bareMiB).replace("the bare Bun server of (a)", "a bare Bun HTTP server"));
} finally {
  await stack.stop();
}
