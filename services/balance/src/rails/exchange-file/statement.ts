import { DomainError, type PayoutStatus, type StatementLine, type StatementReport } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import { REFERENCE_PATTERN, type Payer } from "../../payment-orders.ts";
import { movePayout, orderNumber } from "../../payout-states.ts";
import type { LedgerStore } from "../../store/ledger-store.ts";
import type { PayoutWithOrder } from "../../store/payout-store.ts";
import { dayOf, fieldOf, kopecksOf, malformed, parseExchangeFile, type ExchangeDocument, type ExchangeFile } from "./format.ts";

/** What a line of the statement says of one of our payouts. */
type Found = { kind: "debited" | "refused" | "notYet" | "returned"; line: number; payout: PayoutWithOrder; amountKopecks: number; reason: string | null };

/**
 * A bank's words on a document it did not execute (КвитанцияСодержание, the format's receipt of
 * the bank's processing) that mean it refused it. The bank's own text is the only place the
 * format says so; a receipt without such a word (accepted, queued) means "not yet".
 */
const REFUSAL = /отверг|отклон|отказ|не исполн|аннулир|возвращ/i;

/** The statement's account and period: the header's, or its balance section's. */
function accountAndPeriod(file: ExchangeFile): { account: string; from: string; to: string } {
  const section = file.accounts[0];
  const account = (section && fieldOf(section.fields, "РасчСчет")) ?? fieldOf(file.header, "РасчСчет");
  const from = dayOf(fieldOf(file.header, "ДатаНачала") ?? (section && fieldOf(section.fields, "ДатаНачала")));
  const to = dayOf(fieldOf(file.header, "ДатаКонца") ?? (section && fieldOf(section.fields, "ДатаКонца")));
  if (!account || !from || !to) throw malformed("NO_ACCOUNT_OR_PERIOD");
  return { account, from, to };
}

/**
 * The statement must add up before anything of it is believed: each balance section's opening
 * balance plus what came in less what went out is its closing balance, and the documents' own
 * sums are those totals. An edited amount, or a line taken out or added, breaks one of them.
 */
function checkTotals(file: ExchangeFile, account: string): void {
  if (file.accounts.length === 0) throw malformed("NO_BALANCE_SECTION");
  let inTotal = 0;
  let outTotal = 0;
  for (const s of file.accounts) {
    const [opening, cameIn, wentOut, closing] = ["НачальныйОстаток", "ВсегоПоступило", "ВсегоСписано", "КонечныйОстаток"].map((k) => kopecksOf(fieldOf(s.fields, k)));
    if (opening === undefined || cameIn === undefined || wentOut === undefined || closing === undefined) throw malformed("BALANCE_SECTION_INCOMPLETE", s.line);
    if (opening + cameIn - wentOut !== closing) {
      throw new DomainError("STATEMENT_TOTALS_MISMATCH", { line: s.line, openingKopecks: opening, inKopecks: cameIn, outKopecks: wentOut, closingKopecks: closing });
    }
    inTotal += cameIn;
    outTotal += wentOut;
  }
  let debited = 0;
  let credited = 0;
  for (const d of file.documents) {
    const amount = kopecksOf(fieldOf(d.fields, "Сумма"));
    if (amount === undefined || amount <= 0) throw malformed("NO_AMOUNT", d.line);
    if (fieldOf(d.fields, "ПлательщикСчет") === account && fieldOf(d.fields, "ДатаСписано")) debited += amount;
    if (fieldOf(d.fields, "ПолучательСчет") === account && fieldOf(d.fields, "ДатаПоступило")) credited += amount;
  }
  if (debited !== outTotal) throw new DomainError("STATEMENT_DOCUMENTS_MISMATCH", { total: "ВсегоСписано", documentsKopecks: debited, totalKopecks: outTotal });
  if (credited !== inTotal) throw new DomainError("STATEMENT_DOCUMENTS_MISMATCH", { total: "ВсегоПоступило", documentsKopecks: credited, totalKopecks: inTotal });
}

/** The references in a document's purpose (НазначениеПлатежа, or its parts 1–6 in older files). */
function referencesIn(d: ExchangeDocument): string[] {
  const purpose = d.fields.filter(([k]) => k.startsWith("НазначениеПлатежа")).map(([, v]) => v).join(" ");
  return [...new Set(purpose.match(REFERENCE_PATTERN) ?? [])];
}

/**
 * A line of ours must be exactly the order we made: the amount, and for our own order its number,
 * date and the payee's account and bank. Anything else means the file was edited, or the line is
 * another payment quoting the reference: nothing of the statement is taken in (the caller's
 * transaction is never opened).
 */
function checkLine(d: ExchangeDocument, p: PayoutWithOrder, own: boolean): void {
  const order = p.order!;
  const reference = order.reference;
  const found = kopecksOf(fieldOf(d.fields, "Сумма"))!;
  if (found !== p.payout.amountKopecks) throw new DomainError("STATEMENT_AMOUNT_MISMATCH", { line: d.line, reference, expectedKopecks: p.payout.amountKopecks, foundKopecks: found });
  if (!own) return;
  const expected = `№ ${orderNumber(order.seq)} ${order.date}`;
  const said = `№ ${fieldOf(d.fields, "Номер") ?? "?"} ${dayOf(fieldOf(d.fields, "Дата")) ?? "?"}`;
  if (expected !== said) throw new DomainError("STATEMENT_ORDER_MISMATCH", { line: d.line, reference, expected, found: said });
  const payee = `${order.payee.payout.account} / ${order.payee.payout.bik}`;
  const to = `${fieldOf(d.fields, "ПолучательСчет") ?? "?"} / ${fieldOf(d.fields, "ПолучательБИК") ?? "?"}`;
  if (payee !== to) throw new DomainError("STATEMENT_PAYEE_MISMATCH", { line: d.line, reference, expected: payee, found: to });
}

/** What each line of ours says; lines of the account's other payments are only counted. */
async function linesOfOurs(store: LedgerStore, file: ExchangeFile, account: string): Promise<{ found: Found[]; notOurs: number; unknown: string[] }> {
  const refs = new Map<ExchangeDocument, string[]>(file.documents.map((d) => [d, referencesIn(d)]));
  const known = new Map((await store.payoutsByReference([...new Set([...refs.values()].flat())])).map((p) => [p.order!.reference, p]));
  const found: Found[] = [];
  const unknown = new Set<string>();
  let notOurs = 0;
  const seen = new Set<string>();
  for (const d of file.documents) {
    const payouts = refs.get(d)!.flatMap((r) => (known.has(r) ? [known.get(r)!] : (unknown.add(r), [])));
    const outgoing = fieldOf(d.fields, "ПлательщикСчет") === account;
    const incoming = fieldOf(d.fields, "ПолучательСчет") === account;
    if (payouts.length !== 1 || outgoing === incoming) {
      if (payouts.length > 1) throw malformed("SEVERAL_PAYOUTS", d.line);
      notOurs++;
      continue;
    }
    const payout = payouts[0]!;
    checkLine(d, payout, outgoing);
    const kind: Found["kind"] = incoming
      ? "returned"
      : fieldOf(d.fields, "ДатаСписано")
        ? "debited"
        : REFUSAL.test(fieldOf(d.fields, "КвитанцияСодержание") ?? "")
          ? "refused"
          : "notYet";
    // The same order twice (debited twice, returned twice) is not a bank's statement.
    const key = `${payout.payout.id}:${kind}`;
    if (seen.has(key)) throw malformed("PAYOUT_TWICE", d.line);
    seen.add(key);
    const reason = kind === "returned" ? (fieldOf(d.fields, "НазначениеПлатежа") ?? null) : kind === "refused" ? (fieldOf(d.fields, "КвитанцияСодержание") ?? null) : null;
    found.push({ kind, line: d.line, payout, amountKopecks: payout.payout.amountKopecks, reason });
  }
  return { found, notOurs, unknown: [...unknown] };
}

/** Where each kind of line takes its payout; a debit comes before a return of the same payout in one statement. */
const TARGET: Record<Exclude<Found["kind"], "notYet">, PayoutStatus> = { debited: "PAID", refused: "FAILED", returned: "RETURNED" };
const ORDER: Found["kind"][] = ["debited", "refused", "returned", "notYet"];

/**
 * Takes a bank statement in (docs/balance.md, "The bank's statement"): checked whole first (the
 * format, the payer's account, the totals, every line of ours against its order), then applied in
 * one transaction over the payouts' accounts: debited → PAID, refused → FAILED, returned →
 * RETURNED (FAILED and RETURNED put the amount back on the balance, once: payout-states.ts), each
 * payout marked with the statement's SHA-256, and the statement recorded under that hash with
 * its report. The same file again changes nothing and says when it was taken in; an overlapping
 * statement's lines already applied are reported as such.
 */
export async function importStatement(store: LedgerStore, bytes: Uint8Array, deps: { payer: Payer; now: number; by: string }): Promise<StatementReport> {
  const sha256 = sha256Hex(bytes);
  const earlier = await store.statement(sha256);
  if (earlier) return { ...(earlier.report as StatementReport), duplicate: true };
  const file = parseExchangeFile(bytes);
  const { account, from, to } = accountAndPeriod(file);
  if (account !== deps.payer.account) throw new DomainError("STATEMENT_OTHER_ACCOUNT", { account, payerAccount: deps.payer.account });
  checkTotals(file, account);
  const { found, notOurs, unknown } = await linesOfOurs(store, file, account);
  const report: StatementReport = {
    sha256,
    duplicate: false,
    importedAt: new Date(deps.now).toISOString(),
    account,
    periodFrom: from,
    periodTo: to,
    documents: file.documents.length,
    notOurs,
    paid: [],
    returned: [],
    failed: [],
    inProgress: [],
    alreadyApplied: [],
    unknownReferences: unknown,
  };
  const line = (f: Found): StatementLine => ({ line: f.line, payoutId: f.payout.payout.id, reference: f.payout.order!.reference, amountKopecks: f.amountKopecks, reason: f.reason });
  const sorted = [...found].sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
  const accounts = [...new Set(found.map((f) => f.payout.payout.accountId))];
  const record = { sha256, importedAt: deps.now, account, periodFrom: from, periodTo: to, report, importedBy: deps.by };
  try {
    if (accounts.length === 0) {
      if (!(await store.insertStatement(record))) throw new TakenMeanwhile();
      return report;
    }
    return await store.tx(accounts, async (t) => {
      for (const f of sorted) {
        if (f.kind === "notYet") {
          report.inProgress.push(line(f));
          continue;
        }
        const moved = await movePayout(t, f.payout.payout.id, TARGET[f.kind], { at: deps.now, ...(f.kind === "debited" ? {} : { failureReason: f.reason }) });
        if (!moved) {
          report.alreadyApplied.push({ ...line(f), status: (await t.payout(f.payout.payout.id))!.payout.status });
          continue;
        }
        if (f.kind !== "refused") await t.markStatement(f.payout.payout.id, f.kind === "debited" ? "paid" : "returned", sha256);
        (f.kind === "debited" ? report.paid : f.kind === "refused" ? report.failed : report.returned).push(line(f));
      }
      // Recorded with what it did, last: its key refuses the same file imported at the same moment elsewhere.
      if (!(await t.insertStatement(record))) throw new TakenMeanwhile();
      return report;
    });
  } catch (e) {
    if (!(e instanceof TakenMeanwhile)) throw e;
    // The same file, imported at the same moment by someone else: this one rolled back; theirs is the record.
    return { ...((await store.statement(sha256))!.report as StatementReport), duplicate: true };
  }
}

/** The statement's key was taken while this import ran: it rolls back. */
class TakenMeanwhile extends Error {}
