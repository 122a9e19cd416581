/** The q-quantile (0..1) of unsorted values, nearest rank; NaN when there are none. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))]!;
}

/** Runs `fn` once to warm caches, then `runs` times: each run's milliseconds and the last result. */
export function sampleMs<T>(fn: () => T, runs: number): { samples: number[]; result: T } {
  let result = fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    result = fn();
    samples.push(performance.now() - t);
  }
  return { samples, result };
}

/** sampleMs of an asynchronous `fn`, each run awaited before the next (a store that may be on PostgreSQL). */
export async function sampleMsAsync<T>(fn: () => Promise<T>, runs: number): Promise<{ samples: number[]; result: T }> {
  let result = await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    result = await fn();
    samples.push(performance.now() - t);
  }
  return { samples, result };
}
