import { failure } from "@payaccept/contracts";
import { tracedFetch } from "@payaccept/platform";
import { RegisterCallFailed } from "./port.ts";

/**
 * One HTTP call to a register (the emulator, АТОЛ), bounded by `timeoutMs`: its status and body,
 * or RegisterCallFailed when no answer came (REGISTER_TIMEOUT, REGISTER_UNREACHABLE with the
 * socket's error code). What the answer means is the adapter's business.
 */
export async function callRegister(url: string, init: { method: "GET" | "POST"; headers: Record<string, string>; body?: string }, timeoutMs: number): Promise<{ status: number; text: string }> {
  try {
    const res = await tracedFetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    const err = e as { name?: unknown; code?: unknown };
    throw new RegisterCallFailed(
      err.name === "TimeoutError"
        ? failure("REGISTER_TIMEOUT", { timeoutMs })
        : failure("REGISTER_UNREACHABLE", { detail: String(typeof err.code === "string" ? err.code : err.name) }),
    );
  }
}
