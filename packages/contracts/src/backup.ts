import { z } from "zod";
import { IsoDateTime } from "./primitives.ts";

/**
 * Backups (docs/operations-database.md, "Backups"): each service that keeps rows copies its own
 * SQLite store when asked over NATS (`backupRpc`), and `bun run admin backup` records beside the
 * copies where the JetStream streams and the ledgers' consumers stood. The emulators of third
 * parties (the acquirer, the cash register) are no store of ours: a bank does not lose its records
 * when we lose ours.
 */
export const BACKED_UP_STORES = {
  directory: "directory.db",
  dashboard: "dashboard.db",
  payments: "payments.db",
  balance: "balance.db",
  "webhook-dispatcher": "webhooks.db",
  receipts: "receipts.db",
} as const;
export type BackedUpService = keyof typeof BACKED_UP_STORES;
export const BACKED_UP_SERVICES = Object.keys(BACKED_UP_STORES) as BackedUpService[];

/** A backup's name: the folder of its copies under each service's BACKUP_DIR. */
export const BackupLabel = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, { message: "letters, digits, '.', '_' and '-', up to 64, starting with a letter or digit" });

export const BackupRequest = z.object({ label: BackupLabel });

/** One store's copy, as its service made it; a store on PostgreSQL is copied with PostgreSQL's own tools instead. */
export const StoreCopy = z.discriminatedUnion("engine", [
  z.object({ engine: z.literal("sqlite"), path: z.string(), bytes: z.number().int().min(0), sha256: z.string(), tookMs: z.number().min(0) }),
  z.object({ engine: z.literal("postgres"), variable: z.string() }),
]);
export type StoreCopy = z.infer<typeof StoreCopy>;

/**
 * The durable consumers that apply payment and audit events to a store by a key of their own: a
 * restore starts them again from where they stood at the backup, so the restored ledger, receipts
 * and audit log take every event after it once. The webhook-dispatcher's intake is not among them:
 * its restored store would send again the webhooks delivered after the backup.
 */
export const REPLAYED_CONSUMERS = [
  { stream: "PAYMENTS", durable: "balance", service: "balance" },
  { stream: "PAYMENTS", durable: "balance-refunds", service: "balance" },
  { stream: "PAYMENTS", durable: "receipts", service: "receipts" },
  { stream: "AUDIT", durable: "directory-audit", service: "directory" },
] as const satisfies readonly { stream: string; durable: string; service: BackedUpService }[];

/** What `bun run admin backup` writes beside the copies: manifest.json. */
export const BackupManifest = z.object({
  label: BackupLabel,
  startedAt: IsoDateTime,
  finishedAt: IsoDateTime,
  /** Each stream's last sequence before the first copy: every event at or below it is in the copies. */
  streams: z.record(z.string(), z.object({ lastSeq: z.number().int().min(0) })),
  /** Each replayed consumer's ack floor (stream sequence) before the first copy: everything at or below it is applied in the copy. */
  consumers: z.array(z.object({ stream: z.string(), durable: z.string(), ackFloor: z.number().int().min(0) })),
  stores: z.record(z.string(), StoreCopy),
});
export type BackupManifest = z.infer<typeof BackupManifest>;
