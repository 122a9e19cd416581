import type { Failure, Reason } from "@payaccept/contracts";

/** A failure as the store keeps it: the reason and its parameters as JSON, never English text. */
export const failureColumns = (f: Failure | null) => ({ errorCode: f?.reason ?? null, errorParams: f ? JSON.stringify(f.params) : null });

/** A series' last failure as its delivery row keeps it. */
export const lastErrorColumns = (f: Failure | null) => ({ lastErrorCode: f?.reason ?? null, lastErrorParams: f ? JSON.stringify(f.params) : null });

/** The failure back from its columns. */
export const failureFrom = (code: Reason | null, params: string | null): Failure | null =>
  code === null ? null : { reason: code, params: params === null ? {} : (JSON.parse(params) as Failure["params"]) };
