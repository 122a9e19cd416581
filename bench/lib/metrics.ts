/** One unlabelled sample of a service's Prometheus /metrics (NaN when absent). */
export async function metricValue(serviceUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
}
