/**
 * The webhook-dispatcher's intake on both engines: payment events taken into the delivery store
 * through the intake's own message handler, as its consumer loop hands them over (a pull of
 * INTAKE_BATCH messages at once, the next pull once those are acked), first new, then the same
 * events again as redeliveries (every one a duplicate). No NATS: each message is the event's JSON
 * with the ack and sequence the handler reads. Run by hand: `bun bench/webhook-intake.ts [events]`
 * (default 20000, over 16 shops; SQLite file, then a throwaway PostgreSQL from tests/harness/postgres.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsMsg } from "@nats-io/jetstream";
import { paymentEventSubject, type FinalStatus, type PaymentEvent } from "@payaccept/contracts";
import { createLogger, type DatabaseChoice } from "@payaccept/platform";
import { handlePaymentEventMessage, INTAKE_BATCH, paymentEventRecorder } from "../services/webhook-dispatcher/src/intake.ts";
import { openDeliveryStore } from "../services/webhook-dispatcher/src/store/open-delivery-store.ts";
import { paymentEvent, shopRecord } from "../services/webhook-dispatcher/test-support/fixtures.ts";
import { startPostgres } from "../tests/harness/postgres.ts";

const EVENTS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 20_000);
const SHOPS = 16;
const log = createLogger("bench", "warn");

/** What the intake handler reads of a JetStream message: its JSON, subject, sequence, ack and term. */
function message(event: PaymentEvent, seq: number, acked: () => void): JsMsg {
  const data = new TextEncoder().encode(JSON.stringify(event));
  const m = { data, seq, subject: paymentEventSubject(event.status as FinalStatus), json: () => JSON.parse(new TextDecoder().decode(data)), ack: acked, term: () => {} };
  return m as unknown as JsMsg;
}

async function takeIn(choice: DatabaseChoice, events: PaymentEvent[]) {
  const store = await openDeliveryStore(choice);
  const record = paymentEventRecorder({ store, now: Date.now, log, onRecorded: () => {} });
  const pass = async () => {
    let acked = 0;
    const started = performance.now();
    for (let from = 0; from < events.length; from += INTAKE_BATCH) {
      const pull = events.slice(from, from + INTAKE_BATCH).map((e, k) => handlePaymentEventMessage(message(e, from + k + 1, () => acked++), record, log));
      await Promise.all(pull);
    }
    if (acked !== events.length) throw new Error(`${acked} of ${events.length} acked`);
    return Math.round((events.length / (performance.now() - started)) * 1000);
  };
  const fresh = await pass();
  const again = await pass();
  await store.close();
  return { fresh, again };
}

const shops = Array.from({ length: SHOPS }, () => shopRecord());
const events = Array.from({ length: EVENTS }, (_, i) => paymentEvent(shops[i % SHOPS]!));
const dir = mkdtempSync(join(tmpdir(), "webhook-intake-bench-"));
const pg = await startPostgres();
try {
  const rows = [
    ["SQLite file", await takeIn({ engine: "sqlite", path: join(dir, "webhooks.db") }, events)],
    [
      "PostgreSQL",
      await takeIn({ engine: "postgres", variable: "WEBHOOKS_DATABASE_URL", url: pg.url, schema: "webhooks", pool: 10, statementTimeoutMs: 5000, connectTimeoutMs: 5000 }, events),
    ],
  ] as const;
  for (const [engine, r] of rows) console.log(`${engine.padEnd(12)} ${EVENTS} events: new ${r.fresh}/s, redelivered (duplicates) ${r.again}/s`);
} finally {
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
