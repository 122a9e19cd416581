import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DeliverPolicy, jetstreamManager, JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from "@nats-io/jetstream";
import {
  AUDIT_STREAM,
  AuditEvent,
  BACKED_UP_SERVICES,
  backupRpc,
  BackupLabel,
  BackupManifest,
  DomainError,
  FINAL_STATUSES,
  PAYMENTS_STREAM,
  PaymentEvent,
  REPLAYED_CONSUMERS,
  RefundEvent,
  rpcs,
  type BackedUpService,
  type StoreCopy,
} from "@payaccept/contracts";
import { call, commonEnv, loadConfig, type NatsConnection } from "@payaccept/platform";
import { requireFlag, UsageError, type Command } from "../cli.ts";

/**
 * Backups and what a restore needs (docs/operations-database.md, "Backups"). The copies are made
 * by the services themselves, each of its own store, over NATS: the CLI never opens a database file
 * (the stores may be on other hosts, in volumes it cannot see). Beside them it records where the
 * JetStream streams and the replayed consumers stood before the first copy.
 */

const STREAMS = [PAYMENTS_STREAM, AUDIT_STREAM];

const label = () => new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");

/** Where the manifest goes when `--to` is not given: beside the services' copies on a one-host stack. */
function defaultDir(name: string): string {
  const cfg = loadConfig({ DATA_DIR: commonEnv.DATA_DIR, BACKUP_DIR: commonEnv.BACKUP_DIR });
  return join(cfg.BACKUP_DIR ?? join(cfg.DATA_DIR, "backups"), name);
}

const notFound = (e: unknown) => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.ConsumerNotFound;

async function natsState(jsm: JetStreamManager): Promise<Pick<BackupManifest, "streams" | "consumers">> {
  const streams: BackupManifest["streams"] = {};
  for (const stream of STREAMS) streams[stream] = { lastSeq: (await jsm.streams.info(stream)).state.last_seq };
  const consumers: BackupManifest["consumers"] = [];
  for (const { stream, durable } of REPLAYED_CONSUMERS) {
    // A consumer of a service this deployment does not run (receipts) has nothing to replay.
    const info = await jsm.consumers.info(stream, durable).catch((e: unknown) => (notFound(e) ? undefined : Promise.reject(e)));
    if (info) consumers.push({ stream, durable, ackFloor: info.ack_floor.stream_seq });
  }
  return { streams, consumers };
}

function readManifest(flags: Record<string, unknown>): BackupManifest {
  const file = requireFlag(flags as Record<string, string>, "manifest");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new UsageError(`--manifest: cannot read ${file}: ${(e as Error).message}`);
  }
  const parsed = BackupManifest.safeParse(raw);
  if (!parsed.success) throw new UsageError(`--manifest: ${file} is not a backup manifest`);
  return parsed.data;
}

/** Something that happened after the backup and is not in the restored stores. */
type Finding =
  | { kind: "payment-missing" | "payment-behind"; paymentId: string; shopId: string; orderId: string; status: string; restoredStatus?: string; at: string }
  | { kind: "refund-missing" | "refund-behind"; refundId: string; paymentId: string; shopId: string; status: string; amountKopecks: number; at: string }
  | { kind: "payout-missing"; payoutId: string; accountId: string; amountKopecks: number; at: string }
  | { kind: "webhook-unlogged"; paymentId: string; shopId: string; status: string; at: string };

/** Each message of a stream after `afterSeq`, in order (direct gets: a few thousand after a backup of the day). */
async function* messagesAfter(jsm: JetStreamManager, stream: string, afterSeq: number): AsyncGenerator<{ subject: string; data: unknown }> {
  const last = (await jsm.streams.info(stream)).state.last_seq;
  for (let seq = afterSeq + 1; seq <= last; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (msg) yield { subject: msg.subject, data: msg.json() };
  }
}

const isFinal = (s: string) => (FINAL_STATUSES as readonly string[]).includes(s);

async function reconcile(nc: NatsConnection, manifest: BackupManifest, timeoutMs: number): Promise<{ since: string; checked: Record<string, number>; findings: Finding[] }> {
  const jsm = await jetstreamManager(nc);
  const findings: Finding[] = [];
  const checked = { paymentEvents: 0, refundEvents: 0, payouts: 0 };
  const missing = (e: unknown) => e instanceof DomainError && e.code === "NOT_FOUND";
  for await (const { subject, data } of messagesAfter(jsm, PAYMENTS_STREAM, manifest.streams[PAYMENTS_STREAM]?.lastSeq ?? 0)) {
    if (subject.startsWith("payments.refunds.")) {
      const e = RefundEvent.parse(data);
      checked.refundEvents++;
      const refunds = await call(nc, rpcs.payments.listRefunds, { shopId: e.shopId, id: e.paymentId }, timeoutMs).catch((err: unknown) => (missing(err) ? { items: [] } : Promise.reject(err)));
      const restored = refunds.items.find((r) => r.id === e.refundId);
      if (!restored || restored.status !== e.status) {
        findings.push({ kind: restored ? "refund-behind" : "refund-missing", refundId: e.refundId, paymentId: e.paymentId, shopId: e.shopId, status: e.status, amountKopecks: e.amountKopecks, at: e.occurredAt });
      }
      continue;
    }
    const e = PaymentEvent.parse(data);
    if (!isFinal(e.status)) continue;
    checked.paymentEvents++;
    const restored = await call(nc, rpcs.payments.get, { shopId: e.shopId, id: e.paymentId }, timeoutMs).catch((err: unknown) => (missing(err) ? undefined : Promise.reject(err)));
    if (!restored || !isFinal(restored.status)) {
      findings.push({ kind: restored ? "payment-behind" : "payment-missing", paymentId: e.paymentId, shopId: e.shopId, orderId: e.orderId, status: e.status, restoredStatus: restored?.status, at: e.occurredAt });
    }
    // The dispatcher was not replayed (it would send these again): a webhook it has no record of may have been delivered.
    const log = await call(nc, rpcs.webhooks.log, { shopId: e.shopId, paymentId: e.paymentId, limit: 200 }, timeoutMs);
    if (!log.items.some((d) => d.status === e.status)) findings.push({ kind: "webhook-unlogged", paymentId: e.paymentId, shopId: e.shopId, status: e.status, at: e.occurredAt });
  }
  const payoutsOf = new Map<string, Set<string>>();
  for await (const { subject, data } of messagesAfter(jsm, AUDIT_STREAM, manifest.streams[AUDIT_STREAM]?.lastSeq ?? 0)) {
    if (!subject.endsWith(".payout.created")) continue;
    const e = AuditEvent.parse(data);
    if (!e.accountId || !e.target) continue;
    checked.payouts++;
    let known = payoutsOf.get(e.accountId);
    if (!known) {
      // Newest first: the pages back to the backup's start hold every payout made since.
      known = new Set();
      for (let after: string | undefined, more = true; more; ) {
        const page = await call(nc, rpcs.balance.listPayouts, { accountId: e.accountId, limit: 500, startingAfter: after }, timeoutMs);
        page.items.forEach((p) => known!.add(p.id));
        after = page.items.at(-1)?.id;
        more = page.hasMore && (page.items.at(-1)?.createdAt ?? "") >= manifest.startedAt;
      }
      payoutsOf.set(e.accountId, known);
    }
    if (!known.has(e.target.id)) findings.push({ kind: "payout-missing", payoutId: e.target.id, accountId: e.accountId, amountKopecks: Number(e.after?.amountKopecks ?? 0), at: e.at });
  }
  return { since: manifest.startedAt, checked, findings };
}

export const backupCommands: Record<string, Command> = {
  /**
   * A consistent online copy of every store (docs/operations-database.md, "Backups"): the streams'
   * and consumers' positions first, then each service's copy of its own store, then manifest.json.
   */
  backup: {
    usage: "[--label NAME] [--services a,b,…] [--to DIR] [--json]",
    flags: { label: "string", services: "string", to: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const name = typeof flags.label === "string" ? flags.label : label();
      if (!BackupLabel.safeParse(name).success) throw new UsageError("--label: letters, digits, '.', '_' and '-', up to 64, starting with a letter or digit");
      const services = typeof flags.services === "string" ? flags.services.split(",").map((s) => s.trim()) : BACKED_UP_SERVICES;
      const unknown = services.filter((s) => !(BACKED_UP_SERVICES as string[]).includes(s));
      if (unknown.length) throw new UsageError(`--services: ${unknown.join(", ")} keep no store (those that do: ${BACKED_UP_SERVICES.join(", ")})`);
      const startedAt = new Date().toISOString();
      const jsm = await jetstreamManager(nc);
      const state = await natsState(jsm);
      const stores: Record<string, StoreCopy> = {};
      // One after another: each copy is a read of its own store, and the host's disk is shared.
      for (const service of services as BackedUpService[]) stores[service] = await call(nc, backupRpc(service), { label: name }, Math.max(timeoutMs, 120_000));
      const manifest: BackupManifest = { label: name, startedAt, finishedAt: new Date().toISOString(), ...state, stores };
      const file = join(typeof flags.to === "string" ? flags.to : defaultDir(name), "manifest.json");
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
      print({ manifest: file, ...manifest });
    },
  },
  /**
   * After the copies are back in place and before the services start: the ledger's, receipts' and
   * the audit log's consumers start again from where they stood at the backup.
   */
  "backup:rewind": {
    usage: "--manifest FILE [--json]",
    flags: { manifest: "string" },
    run: async ({ nc, flags, print }) => {
      const manifest = readManifest(flags);
      const jsm = await jetstreamManager(nc);
      const rewound = [];
      for (const { stream, durable, ackFloor } of manifest.consumers) {
        const { config } = await jsm.consumers.info(stream, durable);
        await jsm.consumers.delete(stream, durable);
        await jsm.consumers.add(stream, { ...config, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: ackFloor + 1 });
        rewound.push({ stream, durable, from: ackFloor + 1 });
      }
      print({ rewound });
    },
  },
  /** What happened after the backup that the restored stores do not have: for the operator to settle, never acted on by itself. */
  "backup:reconcile": {
    usage: "--manifest FILE [--json]",
    flags: { manifest: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => print(await reconcile(nc, readManifest(flags), timeoutMs)),
  },
};
