import type { z } from "zod";
import { AtolErrorReply, AtolRegistrationReply, AtolReport, AtolTokenReply, failure, type AtolError } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import type { AtolAccountConfig } from "../../config.ts";
import { RegisterCallFailed, type FiscalDocument, type FiscalRegisterPort, type RegisterState } from "../port.ts";
import { callRegister } from "../register-http.ts";
import { atolDocument, fromAtolTime } from "./atol-document.ts";
import { atolFailure, documentErrorClass, serviceErrorClass } from "./atol-errors.ts";
import { AtolToken } from "./atol-token.ts";

export type AtolRegisterOptions = {
  /** …/possystem/v5, without the trailing slash. */
  baseUrl: string;
  /** The deployment's account: every shop without one of its own. */
  account: AtolAccountConfig;
  /** Shops registered through their own account. */
  shops: Record<string, AtolAccountConfig>;
  /** Sent as service.callback_url: АТОЛ posts each document's result there. */
  callbackUrl: string | undefined;
  /** With a callback URL, how long an accepted document waits for it before its report is polled. */
  callbackWaitMs: number;
  tokenRenewAfterMs: number;
  /** One HTTP call. */
  timeoutMs: number;
  log: Logger;
};

/** A document's id at АТОЛ, as it goes into the report's path. */
const DOCUMENT_ID = /^[0-9A-Za-z-]{1,64}$/;

type Reply = { httpStatus: number; json: unknown };

/** АТОЛ answered with an error object; `uuid`: the document it names, if any (code 33). */
class AtolReplyError extends Error {
  constructor(
    readonly error: AtolError,
    readonly uuid: string | null,
  ) {
    super(`АТОЛ error ${error.code} (${error.type})`);
  }
}

/**
 * The fiscal register port on АТОЛ Онлайн API v5 (FFD 1.2): getToken, sell / sell_refund, report
 * (docs/receipts.md, "АТОЛ Онлайн"). Answers as the port defines: a document accepted is `wait`,
 * a report decides `done` or `fail`; АТОЛ's errors are sorted by atol-errors.ts into a call to
 * retry (RegisterCallFailed) or a refusal that needs a person (`fail` with needsPerson).
 */
export function atolRegister(o: AtolRegisterOptions): FiscalRegisterPort {
  const tokens = new Map<AtolAccountConfig, AtolToken>();
  const accountOf = (shopId: string) => o.shops[shopId] ?? o.account;
  const tokenOf = (account: AtolAccountConfig) => {
    let t = tokens.get(account);
    if (!t) tokens.set(account, (t = new AtolToken(() => obtainToken(account), o.tokenRenewAfterMs)));
    return t;
  };

  async function http(method: "GET" | "POST", path: string, body: unknown, token?: string): Promise<Reply> {
    const res = await callRegister(
      `${o.baseUrl}/${path}`,
      { method, headers: { "Content-Type": "application/json; charset=utf-8", ...(token ? { Token: token } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) },
      o.timeoutMs,
    );
    try {
      return { httpStatus: res.status, json: JSON.parse(res.text) };
    } catch {
      throw new RegisterCallFailed(res.status >= 200 && res.status < 300 ? failure("REGISTER_BAD_REPLY") : failure("REGISTER_HTTP_STATUS", { httpStatus: res.status }));
    }
  }

  /**
   * The reply in the given shape, or the call failed. A service error (an error object with any
   * status but 200, or with any status when `errorIsRefusal`, or "not processed yet" however it
   * comes) is thrown as АТОЛ sent it; otherwise a report's 200 carries the error of a document
   * that failed, which is the document's state, not the call's (its code is the register's own).
   */
  function read<S extends z.ZodType>(schema: S, reply: Reply, errorIsRefusal: boolean): z.output<S> {
    const envelope = AtolErrorReply.safeParse(reply.json);
    const error = envelope.success ? envelope.data.error : undefined;
    const notYet = error && serviceErrorClass(error.code) === "wait" && envelope.data?.status !== "fail" && envelope.data?.status !== "done";
    if (error && (reply.httpStatus !== 200 || errorIsRefusal || notYet)) throw new AtolReplyError(error, envelope.data?.uuid ?? null);
    if (reply.httpStatus !== 200) throw new RegisterCallFailed(failure("REGISTER_HTTP_STATUS", { httpStatus: reply.httpStatus }));
    const parsed = schema.safeParse(reply.json);
    if (!parsed.success) throw new RegisterCallFailed(failure("REGISTER_BAD_REPLY"));
    return parsed.data;
  }

  async function obtainToken(account: AtolAccountConfig): Promise<string> {
    const reply = read(AtolTokenReply, await http("POST", "getToken", { login: account.ATOL_LOGIN, pass: account.ATOL_PASSWORD }), true);
    o.log.info({ groupCode: account.ATOL_GROUP_CODE }, "АТОЛ token obtained");
    return reply.token;
  }

  /** A call with the account's token; a token АТОЛ calls missing or expired is replaced once and the call made again. */
  async function withToken(account: AtolAccountConfig, call: (token: string) => Promise<Reply>): Promise<Reply> {
    const t = tokenOf(account);
    const token = await t.get();
    const reply = await call(token);
    const code = (reply.json as { error?: { code?: unknown } } | null)?.error?.code;
    if (typeof code !== "number" || serviceErrorClass(code) !== "token") return reply;
    t.drop(token);
    return call(await t.get());
  }

  /** АТОЛ's error replies as the port's answers: a refusal that needs a person, or a call to retry. */
  async function settled(run: () => Promise<RegisterState>): Promise<RegisterState> {
    try {
      return await run();
    } catch (e) {
      if (!(e instanceof AtolReplyError)) throw e;
      if (serviceErrorClass(e.error.code) === "needs-person") return { documentId: e.uuid, status: "fail", needsPerson: true, failure: atolFailure(e.error, true) };
      throw new RegisterCallFailed(atolFailure(e.error, false));
    }
  }

  /**
   * `hops`: how many times this answer already went from a registration to a report or back (a
   * document that exists; a uuid АТОЛ does not know): twice is enough for a consistent АТОЛ, so a
   * third is a reply to retry later rather than a loop.
   */
  function register(doc: FiscalDocument, hops: number): Promise<RegisterState> {
    const account = accountOf(doc.shopId);
    if (!account.ATOL_COMPANY_SNO.includes(doc.taxation)) {
      return Promise.resolve({ documentId: null, status: "fail", needsPerson: true, failure: failure("RECEIPT_TAXATION_NOT_REGISTERED", { taxation: doc.taxation }) });
    }
    const operation = doc.kind === "SALE" ? "sell" : "sell_refund";
    return settled(async () => {
      const body = atolDocument(doc, account, Date.now(), o.callbackUrl);
      let reply;
      try {
        reply = read(AtolRegistrationReply, await withToken(account, (token) => http("POST", `${account.ATOL_GROUP_CODE}/${operation}`, body, token)), true);
      } catch (e) {
        // The document was taken before (a repeat after a crash or a lost reply): its state is the answer.
        if (e instanceof AtolReplyError && serviceErrorClass(e.error.code) === "exists" && e.uuid && DOCUMENT_ID.test(e.uuid) && hops < 2) return state(e.uuid, doc, hops + 1);
        throw e;
      }
      if (!DOCUMENT_ID.test(reply.uuid) || reply.status === "fail") throw new RegisterCallFailed(failure("REGISTER_BAD_REPLY"));
      return { documentId: reply.uuid, status: "wait", ...(o.callbackUrl ? { checkAfterMs: o.callbackWaitMs } : {}) };
    });
  }

  function state(documentId: string, doc: FiscalDocument, hops: number): Promise<RegisterState> {
    if (!DOCUMENT_ID.test(documentId)) return Promise.reject(new RegisterCallFailed(failure("REGISTER_BAD_REPLY")));
    const account = accountOf(doc.shopId);
    return settled(async () => {
      let report;
      try {
        report = read(AtolReport, await withToken(account, (token) => http("GET", `${account.ATOL_GROUP_CODE}/report/${documentId}`, undefined, token)), false);
      } catch (e) {
        if (!(e instanceof AtolReplyError)) throw e;
        const is = serviceErrorClass(e.error.code);
        if (is === "wait") return { documentId, status: "wait" };
        // АТОЛ does not know the uuid: the document is asked for again under its external id, which АТОЛ keeps to one document.
        if (is === "unknown-document" && hops < 2) return register(doc, hops + 1);
        throw e;
      }
      // A report about another document (a uuid that is not this receipt's) proves nothing about this one.
      if (report.uuid !== documentId || (report.external_id && report.external_id !== doc.externalId)) throw new RegisterCallFailed(failure("REGISTER_BAD_REPLY"));
      if (report.status === "wait") return { documentId, status: "wait" };
      if (report.status === "done") {
        const p = report.payload;
        const registeredAt = p && fromAtolTime(p.receipt_datetime);
        if (!p || !registeredAt) throw new RegisterCallFailed(failure("REGISTER_BAD_REPLY"));
        return {
          documentId,
          status: "done",
          fiscal: { documentNumber: p.fiscal_document_number, fiscalSign: String(p.fiscal_document_attribute), driveNumber: p.fn_number, registeredAt },
        };
      }
      const error = report.error ?? { code: 0, type: "unknown", text: null };
      const needsPerson = documentErrorClass(error.type) === "needs-person";
      return { documentId, status: "fail", needsPerson, failure: atolFailure(error, needsPerson) };
    });
  }

  return { register: (doc) => register(doc, 0), state: (documentId, doc) => state(documentId, doc, 0) };
}
