import { AsyncLocalStorage } from "node:async_hooks";
import { DomainError, type AuditActor, type Rpc, type RpcRequest, type RpcResponse } from "@payaccept/contracts";
import { call, type NatsConnection } from "@payaccept/platform";
import type { z } from "zod";

type AnyRpc = Rpc<z.ZodType, z.ZodType>;

/**
 * The other services as the dashboard reaches them: every request bounded by a timeout, so a
 * service that is down becomes DomainError UNAVAILABLE (a clear message), never a hanging page.
 * Every request made while a page serves a signed-in person carries them as its actor (actingFor),
 * so whatever a service records in the audit log names them: no route can forget to say who asks.
 */
export class Backend {
  private readonly acting = new AsyncLocalStorage<AuditActor>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeouts: { normalMs: number; slowMs: number },
  ) {}

  /** Runs `fn` (a request's handling) with every call made within it on behalf of `actor`. */
  actingFor<T>(actor: AuditActor, fn: () => T): T {
    return this.acting.run(actor, fn);
  }

  call<R extends AnyRpc>(rpc: R, req: RpcRequest<R>): Promise<RpcResponse<R>> {
    return call(this.nc, rpc, req, this.timeouts.normalMs, { actor: this.acting.getStore() });
  }

  /** For requests that wait on someone outside: the acquirer (refunds), a merchant's endpoint (test webhook). */
  slow<R extends AnyRpc>(rpc: R, req: RpcRequest<R>): Promise<RpcResponse<R>> {
    return call(this.nc, rpc, req, this.timeouts.slowMs, { actor: this.acting.getStore() });
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
