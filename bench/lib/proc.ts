import { readdirSync, readFileSync } from "node:fs";

/** Resident set of a process in MiB, from /proc/<pid>/status VmRSS (kB). */
export function rssMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) / 1024;
}

const CLOCK_TICKS_PER_SECOND = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND; // utime, stime
  } catch {
    return 0;
  }
}

/** Busy and stolen CPU seconds of the whole machine so far (/proc/stat: all but idle and iowait). */
function machineSeconds(): { busy: number; steal: number } {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const t = ticks.map(Number); // user nice system idle iowait irq softirq steal guest guest_nice
  const busy = t[0]! + t[1]! + t[2]! + t[5]! + t[6]!;
  return { busy: busy / CLOCK_TICKS_PER_SECOND, steal: t[7]! / CLOCK_TICKS_PER_SECOND };
}

export type CpuShare = Record<string, number>;

/**
 * Runs `fn` and reports how much of one core each named process (or group of processes) used
 * meanwhile (1.0 = one core busy the whole time); `extra`: CPU seconds of processes that only
 * lived during `fn` (the load generator), returned by it. Also: this process ("bench"), the whole
 * machine ("machine busy"), what none of these account for ("others": anything else running on
 * the machine, which makes a run unreliable) and what the hypervisor took ("steal").
 */
export async function measureCpu<T>(
  pids: Record<string, number | number[]>,
  fn: () => Promise<{ result: T; extra?: Record<string, number> }>,
): Promise<{ result: T; cpu: CpuShare; seconds: number }> {
  const used = (p: number | number[]) => (Array.isArray(p) ? p : [p]).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const before = Object.fromEntries(Object.entries(pids).map(([name, p]) => [name, used(p)]));
  const machineBefore = machineSeconds();
  const selfBefore = process.cpuUsage();
  const started = performance.now();
  const { result, extra } = await fn();
  const seconds = (performance.now() - started) / 1000;
  const self = process.cpuUsage(selfBefore);
  const machineAfter = machineSeconds();
  const cpu: CpuShare = {};
  for (const [name, p] of Object.entries(pids)) cpu[name] = (used(p) - before[name]!) / seconds;
  for (const [name, s] of Object.entries(extra ?? {})) cpu[name] = s / seconds;
  cpu.bench = (self.user + self.system) / 1e6 / seconds;
  const accounted = Object.values(cpu).reduce((a, b) => a + b, 0);
  cpu["machine busy"] = (machineAfter.busy - machineBefore.busy) / seconds;
  cpu.others = Math.max(0, cpu["machine busy"] - accounted);
  cpu.steal = (machineAfter.steal - machineBefore.steal) / seconds;
  return { result, cpu, seconds };
}

/** A process and its children as they are now (PostgreSQL's server: the postmaster and a backend per connection). */
export function withChildren(pid: number): number[] {
  const children = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid ? [Number(d)] : []; // ppid
    } catch {
      return [];
    }
  });
  return [pid, ...children];
}
