import { DomainError } from "@payaccept/contracts";

/**
 * The work's result, or SERVICE_UNAVAILABLE (503, naming the service or store) when it fails or takes longer than
 * timeoutMs: a store the gateway depends on never makes a request wait past the bound. Work that
 * is abandoned keeps running; what it leaves must be safe to find later.
 */
export async function boundedBy<T>(work: Promise<T>, timeoutMs: number, service: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DomainError("SERVICE_UNAVAILABLE", { service })), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch (e) {
    throw e instanceof DomainError ? e : new DomainError("SERVICE_UNAVAILABLE", { service });
  } finally {
    clearTimeout(timer);
  }
}
