/**
 * `bun bench/profile-shares.ts <file.cpuprofile>…`: where a service's CPU went under load, from the
 * profiles `BENCH_CPU_PROF` writes (bench/hot-path.ts). Only the seconds under load count (those
 * with at least half the busiest second's samples: start-up, seeding and the idle ceiling runs
 * drop out). Prints, per file, each library's share of the samples two ways: `self`, the sample's
 * own frame, a built-in (JSON, Map, a native call) charged to the library that called it; and
 * `inclusive`, every sample with the library anywhere on its stack (the shares overlap). Then the
 * functions by self share and the project's own functions by inclusive share. Async continuations count where they resume.
 */
type Frame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

const LIBRARIES: [string, RegExp][] = [
  ["hono", /node_modules\/(hono|@hono)\//],
  ["zod", /node_modules\/zod\//],
  ["nats.js JetStream (publish, PubAck)", /node_modules\/@nats-io\/(jetstream|kv)\//],
  ["nats.js core", /node_modules\/@nats-io\//],
  ["pino (log lines)", /node_modules\/(pino|sonic-boom|thread-stream|safe-stable-stringify|fast-redact)/],
  ["prom-client", /node_modules\/prom-client\//],
  ["drizzle", /node_modules\/drizzle-orm\//],
  ["bun:sqlite", /^bun:sqlite/],
  ["opentelemetry", /node_modules\/@opentelemetry\//],
  ["node streams, net, events", /^(node:|internal:)/],
  ["other packages", /node_modules\//],
  ["payaccept (services/, packages/)", /\/(services|packages|bench)\//],
];
const SPECIAL = new Set(["(program)", "(garbage collector)", "(root)"]);

function libraryOf(f: Frame): string | undefined {
  if (SPECIAL.has(f.functionName)) return f.functionName;
  if (!f.url) return undefined;
  return LIBRARIES.find(([, re]) => re.test(f.url))?.[0] ?? "other";
}

const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)} %`.padStart(8);

for (const file of process.argv.slice(2)) {
  const p = (await Bun.file(file).json()) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = (id: number) => byId.get(id)!.callFrame.functionName === "(idle)";
  // Samples per second of the process's life, to keep only the seconds under load.
  let t = 0;
  const second = p.samples.map((_, i) => Math.floor((t += p.timeDeltas[i]!) / 1e6));
  const perSecond = new Map<number, number>();
  p.samples.forEach((id, i) => !idle(id) && perSecond.set(second[i]!, (perSecond.get(second[i]!) ?? 0) + 1));
  const busiest = Math.max(...perSecond.values());
  const loaded = p.samples.flatMap((id, i) => (!idle(id) && perSecond.get(second[i]!)! >= busiest / 2 ? [id] : []));

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const ours = new Map<string, number>();
  const selfFns = new Map<string, number>();
  const service = p.nodes.map((n) => n.callFrame.url.match(/services\/([\w-]+)\/src\/main\.ts/)?.[1]).find(Boolean) ?? "?";
  for (const leaf of loaded) {
    const libs = new Set<string>();
    const fns = new Set<string>();
    let first: string | undefined;
    let firstFn: string | undefined;
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      const lib = libraryOf(f);
      if (lib === undefined || lib === "(root)") continue;
      first ??= lib;
      firstFn ??= `${byId.get(leaf)!.callFrame.functionName || "(anonymous)"} in ${f.functionName || "(anonymous)"} ${f.url.replace(/^.*node_modules\//, "").replace(/^.*\/((services|packages)\/)/, "$1")}:${f.lineNumber + 1}`;
      libs.add(lib);
      const local = f.url.match(/\/((services|packages)\/.*)$/)?.[1];
      if (local) fns.add(`${f.functionName || "(anonymous)"} ${local}:${f.lineNumber + 1}`);
    }
    self.set(first ?? "(built-in, no caller)", (self.get(first ?? "(built-in, no caller)") ?? 0) + 1);
    for (const l of libs) inclusive.set(l, (inclusive.get(l) ?? 0) + 1);
    for (const f of fns) ours.set(f, (ours.get(f) ?? 0) + 1);
    if (firstFn) selfFns.set(firstFn, (selfFns.get(firstFn) ?? 0) + 1);
  }
  const n = loaded.length;
  console.log(`\n${file}: ${service}, ${n} samples under load (${perSecond.size} s profiled, busiest ${busiest} samples/s)`);
  console.log(`${"library".padEnd(36)}${"self".padStart(8)}${"inclusive".padStart(11)}`);
  for (const [lib, s] of [...self].sort((a, b) => b[1] - a[1])) console.log(`${lib.padEnd(36)}${pct(s, n)}${pct(inclusive.get(lib) ?? s, n).padStart(11)}`);
  console.log("functions by self share (a built-in charged to its caller: `values in get …` is the native statement drizzle ran):");
  for (const [f, c] of [...selfFns].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${pct(c, n)}  ${f}`);
  console.log("payaccept's own functions, inclusive:");
  for (const [f, c] of [...ours].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${pct(c, n)}  ${f}`);
}

// A module (its names are its own), though it imports nothing.
export {};
