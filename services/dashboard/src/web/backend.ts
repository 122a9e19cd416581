import { DomainError, type Rpc, type RpcRequest, type RpcResponse } from "@payaccept/contracts";
import { call, type NatsConnection } from "@payaccept/platform";
import type { z } from "zod";

type AnyRpc = Rpc<z.ZodType, z.ZodType>;

/**
 * The other services as the dashboard reaches them: every request bounded by a timeout, so a
 * service that is down becomes DomainError UNAVAILABLE (a clear message), never a hanging page.
 */
export class Backend {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeouts: { normalMs: number; slowMs: number },
  ) {}

  call<R extends AnyRpc>(rpc: R, req: RpcRequest<R>): Promise<RpcResponse<R>> {
    return call(this.nc, rpc, req, this.timeouts.normalMs);
  }

  /** For requests that wait on someone outside: the acquirer (refunds), a merchant's endpoint (test webhook). */
  slow<R extends AnyRpc>(rpc: R, req: RpcRequest<R>): Promise<RpcResponse<R>> {
    return call(this.nc, rpc, req, this.timeouts.slowMs);
  }
}

/** A part of a page whose service did not answer: the page still renders and says which one. */
export type Loaded<T> = { ok: true; value: T } | { ok: false; service: string };

export async function loaded<T>(request: Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, value: await request };
  } catch (e) {
    if (e instanceof DomainError && e.reason === "SERVICE_UNAVAILABLE") return { ok: false, service: String(e.params.service) };
    throw e;
  }
}
