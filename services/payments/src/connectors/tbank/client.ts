import type { z } from "zod";
import { tracedFetch } from "@payaccept/platform";
import { fetchFailure, notStarted, ProviderError } from "../../provider/port.ts";
import { outcomeUnknown } from "./errors.ts";
import { tbankToken } from "./token.ts";
import { Envelope } from "./wire.ts";

export type TBankClientOptions = {
  /** The API's base, up to and with /v2: the bank's production or test environment, or a fake of it. */
  baseUrl: string;
  terminalKey: string;
  /** Signs every request (Token); never sent, never logged. */
  password: string;
  timeoutMs: number;
};

/** The bank answered and said no: its ErrorCode and words. The caller decides what that means for its operation. */
export class TBankRefusal extends Error {
  constructor(
    readonly method: string,
    readonly errorCode: string,
    readonly bankMessage: string,
  ) {
    super(`T-Bank ${method} refused: ${errorCode} ${bankMessage}`.trim());
  }
}

export type TBankClient = {
  /** POST /<method> with TerminalKey and Token added; the reply read with `reply`, or TBankRefusal / ProviderError thrown. */
  call<S extends z.ZodType>(method: string, params: Record<string, unknown>, reply: S): Promise<z.output<S>>;
  readonly terminalKey: string;
  readonly password: string;
};

/**
 * The HTTP side of the bank's API. A refused connection or a 5xx is "nothing began" (the
 * gateway never passed the request on); a timeout or a closed connection is an unknown outcome;
 * the bank's own failure codes ("try again later", internal errors) are unknown outcomes too;
 * any other Success=false is the bank's refusal (TBankRefusal).
 */
export function tbankClient(opts: TBankClientOptions): TBankClient {
  return {
    terminalKey: opts.terminalKey,
    password: opts.password,
    async call(method, params, reply) {
      const body: Record<string, unknown> = { TerminalKey: opts.terminalKey, ...params };
      body.Token = tbankToken(body, opts.password);
      let res: Response;
      let text: string;
      try {
        res = await tracedFetch(`${opts.baseUrl}/${method}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
          redirect: "manual",
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
        text = await res.text();
      } catch (e) {
        throw fetchFailure(e, `T-Bank ${method}`, opts.timeoutMs);
      }
      if (res.status >= 500) throw notStarted(`T-Bank ${method} answered ${res.status}`);
      const json = parseJson(text);
      if (res.status !== 200 || json === undefined) throw new ProviderError("rejected", `T-Bank ${method} answered ${res.status} without a JSON body`);
      if (!Array.isArray(json)) {
        const envelope = Envelope.safeParse(json);
        if (!envelope.success) throw new ProviderError("rejected", `T-Bank ${method} reply has no Success/ErrorCode`);
        if (!envelope.data.Success || envelope.data.ErrorCode !== "0") {
          const { ErrorCode, Message, Details } = envelope.data;
          if (outcomeUnknown(ErrorCode)) throw new ProviderError("unavailable", `T-Bank ${method} failed on its side: ${ErrorCode} ${Message ?? ""}`.trim());
          throw new TBankRefusal(method, ErrorCode, [Message, Details].filter(Boolean).join(": "));
        }
      }
      const parsed = reply.safeParse(json);
      if (!parsed.success) throw new ProviderError("rejected", `T-Bank ${method} reply does not follow the API`);
      return parsed.data;
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
