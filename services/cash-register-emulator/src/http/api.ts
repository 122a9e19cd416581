import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { CashRegisterDocumentRequest, CashRegisterSandbox, DomainError } from "@payaccept/contracts";
import { createServiceApp, jsonError, readJsonBody, requireBearer, type AppEnv, type Logger, type ReadinessCheck } from "@payaccept/platform";
import { findDocument, registerDocument, settle, toWire } from "../documents.ts";
import type { RegisterDb } from "../store/db.ts";

export type RegisterAppDeps = {
  log: Logger;
  db: RegisterDb;
  apiKey: string;
  /** The sandbox switch; held in memory, so a restart returns to the configured delay and normal mode. */
  sandbox: CashRegisterSandbox;
  readiness: Record<string, ReadinessCheck>;
};

/** The register's HTTP API (docs/cash-register-emulator.md), behind the bearer key. */
export function createRegisterApp(deps: RegisterAppDeps) {
  const app = createServiceApp(deps.log, deps.readiness);
  const api = new Hono<AppEnv>();
  api.use("*", bodyLimit({ maxSize: 256 * 1024, onError: (c) => jsonError(c, new DomainError("BODY_TOO_LARGE", { maxBytes: 256 * 1024 })) }));
  api.use("*", requireBearer(deps.apiKey));

  api.post("/sandbox", async (c) => {
    Object.assign(deps.sandbox, await readJsonBody(c, CashRegisterSandbox));
    c.get("log").warn({ ...deps.sandbox }, "sandbox switch changed");
    return c.json(deps.sandbox);
  });
  api.get("/sandbox", (c) => c.json(deps.sandbox));

  // Down means down for the documents: the caller sees what an unreachable register looks like.
  const whenDown: MiddlewareHandler = async (c, next) => {
    if (deps.sandbox.mode === "down") return jsonError(c, new DomainError("REGISTER_DOWN"));
    await next();
  };
  api.use("/documents", whenDown);
  api.use("/documents/*", whenDown);

  api.post("/documents", async (c) => {
    const req = await readJsonBody(c, CashRegisterDocumentRequest);
    const now = Date.now();
    const { doc, created } = registerDocument(deps.db, req, now, deps.sandbox.delayMs);
    if (created) c.get("log").info({ documentId: doc.id, externalId: doc.externalId, operation: doc.operation, totalKopecks: req.totalKopecks }, "document accepted");
    return c.json(toWire(settle(deps.db, doc, now)), created ? 202 : 200);
  });

  api.get("/documents/:id", (c) => {
    const doc = findDocument(deps.db, c.req.param("id"));
    if (!doc) return jsonError(c, new DomainError("DOCUMENT_NOT_FOUND"));
    const settled = settle(deps.db, doc, Date.now());
    if (settled.status !== doc.status) c.get("log").info({ documentId: doc.id, status: settled.status, fiscalDocumentNumber: settled.fiscalDocumentNumber }, "document settled");
    return c.json(toWire(settled));
  });

  app.route("/v1", api);
  app.onError((err, c) => {
    if (err instanceof DomainError) return jsonError(c, err);
    c.get("log").error({ err }, "unhandled error");
    return jsonError(c, new DomainError("INTERNAL"));
  });
  return app;
}
