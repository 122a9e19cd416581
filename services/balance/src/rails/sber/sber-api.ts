import { z } from "zod";
import type { PaymentOrderDoc } from "../../payment-orders.ts";
import type { TokenPair } from "../../store/payout-store.ts";

/**
 * Sber's API for ruble payment orders ("Sber API", developers.sber.ru: «Создание рублевого
 * платежного поручения», «Получение статуса рублевого платежного поручения», «Получение/обновление
 * токенов доступа»), the calls the payout rail makes. Every call goes over mutual TLS with the
 * certificate the bank issued; the API's calls carry the signing person's access token.
 */

export type SberConnection = {
  /** e.g. https://fintech.sberbank.ru:9443 */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** PEM texts, read once at start. */
  tls: { cert: string; key: string; ca?: string };
  timeoutMs: number;
};

/** No answer, a 5xx or a timeout: whether the bank acted is unknown, so it is asked before anything is made again. */
export class SberUnavailable extends Error {
  override readonly name = "SberUnavailable";
}

/** 401: the access token is no longer taken. */
export class SberUnauthorized extends Error {
  override readonly name = "SberUnauthorized";
}

/** A 4xx answer to a payment order: the bank's cause (DESERIALIZATION_FAULT, VALIDATION_FAULT, WORKFLOW_FAULT…) and its words. */
export class SberRefused extends Error {
  override readonly name = "SberRefused";
  constructor(
    readonly status: number,
    readonly fault: string,
    readonly detail: string,
  ) {
    super(`${status} ${fault}: ${detail}`);
  }
}

/** The token endpoint refused the refresh token: a signing person must sign in again and give a new one (SBER_REFRESH_TOKEN). */
export class SberGrantRefused extends Error {
  override readonly name = "SberGrantRefused";
}

const TokenAnswer = z.object({ access_token: z.string().min(1), refresh_token: z.string().min(1), expires_in: z.coerce.number().int().positive() });
const StateAnswer = z.object({ bankStatus: z.string().min(1), bankComment: z.string().nullish() });
const Fault = z.object({ cause: z.string().optional(), message: z.string().optional() }).passthrough();

export type SberState = { bankStatus: string; bankComment: string | null };

/** The order as the bank's Payment model names its fields: a draft (no digestSignatures) that a signing person signs in SberBusiness. */
export function sberPaymentOf(doc: PaymentOrderDoc, externalId: string) {
  const { payer, payee } = doc;
  return {
    externalId,
    number: String(doc.number),
    date: doc.date,
    // Rubles as the model's number: integer kopecks divided once, printed with at most two decimals.
    amount: doc.amountKopecks / 100,
    // «01»: a payment order; priority 5 as every other payment (Art. 855 of the Civil Code).
    operationCode: "01",
    priority: "5",
    purpose: doc.purpose,
    payerName: payer.name,
    payerInn: payer.inn,
    payerKpp: payer.kpp,
    payerAccount: payer.account,
    payerBankBic: payer.bik,
    payerBankCorrAccount: payer.correspondentAccount,
    payeeName: payee.payout.recipientName,
    payeeInn: payee.inn,
    ...(payee.kpp ? { payeeKpp: payee.kpp } : {}),
    payeeAccount: payee.payout.account,
    payeeBankBic: payee.payout.bik,
    payeeBankCorrAccount: payee.payout.correspondentAccount,
  };
}

export type SberApi = ReturnType<typeof sberApi>;

export function sberApi(conn: SberConnection) {
  const call = async (path: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${conn.apiUrl}${path}`, { ...init, signal: AbortSignal.timeout(conn.timeoutMs), tls: conn.tls } as RequestInit);
    } catch (e) {
      throw new SberUnavailable(`${path}: ${(e as Error).name}`);
    }
  };
  const json = async <T>(res: Response, schema: z.ZodType<T>, what: string): Promise<T> => {
    const parsed = schema.safeParse(await res.json().catch(() => undefined));
    // An answer the documentation does not describe is no decision: the call counts as unanswered.
    if (!parsed.success) throw new SberUnavailable(`${what}: unexpected answer`);
    return parsed.data;
  };
  const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}`, accept: "application/json" });
  /** What every API call does with an answer that is not a success. */
  const failure = async (res: Response, what: string): Promise<never> => {
    if (res.status === 401) throw new SberUnauthorized(what);
    if (res.status >= 500 || res.status === 429) throw new SberUnavailable(`${what}: ${res.status}`);
    const fault = Fault.safeParse(await res.json().catch(() => ({})));
    throw new SberRefused(res.status, fault.data?.cause ?? "UNKNOWN", fault.data?.message ?? "");
  };

  return {
    /** Refreshes the pair: the bank answers a new access token (60 minutes) and a new refresh token. */
    async refresh(refreshToken: string, now: number): Promise<TokenPair> {
      const body = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: conn.clientId, client_secret: conn.clientSecret });
      const res = await call("/ic/sso/api/v2/oauth/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body });
      if (res.status === 400 || res.status === 401) throw new SberGrantRefused(`token endpoint answered ${res.status}`);
      if (!res.ok) throw new SberUnavailable(`token: ${res.status}`);
      const t = await json(res, TokenAnswer, "token");
      return { refreshToken: t.refresh_token, accessToken: t.access_token, accessExpiresAt: now + t.expires_in * 1000 };
    },
    /** Makes the order a draft at the bank; a refusal throws SberRefused. */
    async createPayment(accessToken: string, payment: ReturnType<typeof sberPaymentOf>): Promise<void> {
      const res = await call("/fintech/api/v1/payments", { method: "POST", headers: { ...bearer(accessToken), "content-type": "application/json" }, body: JSON.stringify(payment) });
      if (!res.ok) await failure(res, "payments");
    },
    /** The order's state; null when the bank has no order of this id. */
    async paymentState(accessToken: string, externalId: string): Promise<SberState | null> {
      const res = await call(`/fintech/api/v1/payments/${encodeURIComponent(externalId)}/state`, { headers: bearer(accessToken) });
      if (res.status === 404) return null;
      if (!res.ok) await failure(res, "state");
      const s = await json(res, StateAnswer, "state");
      return { bankStatus: s.bankStatus, bankComment: s.bankComment ?? null };
    },
  };
}
