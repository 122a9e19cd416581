import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { DomainError, ERROR_HTTP_STATUS } from "@payaccept/contracts";
import { createServiceApp, fromHttpException, jsonError, type GroupCommit, type Logger, type ReadinessCheck } from "@payaccept/platform";
import type { CallbackDispatcher } from "../callbacks/dispatcher.ts";
import type { AcquirerDb } from "../store/db.ts";
import { MessagePage } from "../views/layout.tsx";
import { bankApp } from "./bank-app.tsx";
import { bankPages } from "./bank-pages.tsx";
import type { DropAnswers } from "./drop-answers.ts";
import { formKeyFrom, FormTokens } from "./form-token.ts";
import { providerApi } from "./provider-api.ts";
import { setPageSecurityHeaders } from "./security-headers.ts";

const bankCss = readFileSync(join(import.meta.dir, "../assets/bank.css"), "utf8");

export type AcquirerAppDeps = {
  log: Logger;
  db: AcquirerDb;
  commits: GroupCommit;
  dispatcher: CallbackDispatcher;
  publicUrl: string;
  apiKey: string;
  callbackSecret: string;
  /** How long a card hold lasts before the acquirer voids it itself. */
  holdTtlMs: number;
  drops: DropAnswers;
  readiness: Record<string, ReadinessCheck>;
};

const isApi = (c: Context) => c.req.path.startsWith("/v1/");

function errorPage(c: Context, status: number, title: string, text: string) {
  setPageSecurityHeaders(c);
  return c.html(<MessagePage title={title} text={text} />, status as 400);
}

/** The emulator's HTTP surface: JSON for payments under /v1, HTML pages for buyers elsewhere. */
export function createAcquirerApp(deps: AcquirerAppDeps) {
  const app = createServiceApp(deps.log, deps.readiness);
  app.get("/assets/bank.css", (c) =>
    c.body(bankCss, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff" }),
  );
  // The bank has no icon; an empty answer keeps a browser's automatic request from being a 404 in its console.
  app.get("/favicon.ico", (c) => c.body(null, 204, { "Cache-Control": "public, max-age=86400" }));
  const { db, commits, publicUrl, dispatcher, holdTtlMs } = deps;
  const tokens = new FormTokens(formKeyFrom(deps.callbackSecret));
  app.route("/v1", providerApi({ db, commits, publicUrl, apiKey: deps.apiKey, holdTtlMs, dispatcher, drops: deps.drops }));
  app.route("/", bankPages({ db, publicUrl, dispatcher, tokens, holdTtlMs }));
  app.route("/", bankApp({ db, publicUrl, dispatcher, tokens }));

  app.notFound((c) => (isApi(c) ? jsonError(c, new DomainError("ROUTE_NOT_FOUND", { method: c.req.method, path: c.req.path })) : errorPage(c, 404, "Страница не найдена", "Такой страницы нет.")));
  app.onError((err, c) => {
    const status = err instanceof DomainError ? ERROR_HTTP_STATUS[err.code] : err instanceof HTTPException ? err.status : 500;
    if (status >= 500) c.get("log").error({ err }, "unhandled error");
    if (isApi(c)) return jsonError(c, err instanceof DomainError ? err : err instanceof HTTPException ? fromHttpException(err) : new DomainError("INTERNAL"));
    return errorPage(c, status, status >= 500 ? "Сбой тестового банка" : "Неверный запрос", "Попробуйте ещё раз чуть позже.");
  });
  return app;
}
