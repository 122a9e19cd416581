import { MEASURES, PAYMENT_SUBJECTS, type AtolDocumentRequest } from "@payaccept/contracts";
import { MOSCOW_OFFSET_MS, moscowWallClock } from "@payaccept/domain";
import type { AtolAccountConfig } from "../../config.ts";
import type { FiscalDocument } from "../port.ts";

/** АТОЛ's payment type 1: paid electronically (tag 1081), as every payment we take is (SBP, card). */
const ELECTRONIC = 1;

/** Kopecks as АТОЛ's rubles: n / 100 is the double nearest to the decimal, which JSON writes with at most two decimals. */
const rubles = (kopecks: number) => kopecks / 100;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** "dd.mm.yyyy HH:MM:SS", Moscow time: how АТОЛ writes and reads times. */
export function atolTime(instantMs: number): string {
  const t = moscowWallClock(instantMs);
  return `${pad(t.getUTCDate())}.${pad(t.getUTCMonth() + 1)}.${t.getUTCFullYear()} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}

/** An АТОЛ time (Moscow) as an instant in ISO-8601 UTC, or undefined when it is not one. */
export function fromAtolTime(text: string): string | undefined {
  const m = /^(\d{2})\.(\d{2})\.(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [, dd, mm, yyyy, hh, mi, ss] = m.map(Number) as number[];
  const ms = Date.UTC(yyyy!, mm! - 1, dd!, hh!, mi!, ss!) - MOSCOW_OFFSET_MS;
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * The sell / sell_refund body of a document (FFD 1.2): the seller from the account, the taxation
 * system the receipt was made with, each line with its payment method (tag 1214), payment object
 * (tag 1212, by number in v5), unit (tag 2108) and VAT rate (the register computes the tax), all
 * of it paid electronically.
 */
export function atolDocument(doc: FiscalDocument, account: AtolAccountConfig, now: number, callbackUrl: string | undefined): AtolDocumentRequest {
  return {
    timestamp: atolTime(now),
    external_id: doc.externalId,
    ...(callbackUrl ? { service: { callback_url: callbackUrl } } : {}),
    receipt: {
      client: { ...(doc.customer.email ? { email: doc.customer.email } : {}), ...(doc.customer.phone ? { phone: doc.customer.phone } : {}) },
      company: { email: account.ATOL_COMPANY_EMAIL, sno: doc.taxation, inn: account.ATOL_COMPANY_INN, payment_address: account.ATOL_COMPANY_PAYMENT_ADDRESS },
      items: doc.items.map((item) => ({
        name: item.name,
        price: rubles(item.priceKopecks),
        quantity: item.quantity,
        measure: MEASURES[item.measure ?? "piece"],
        sum: rubles(item.amountKopecks),
        payment_method: item.paymentMode,
        payment_object: PAYMENT_SUBJECTS[item.paymentSubject],
        vat: { type: item.vat },
      })),
      payments: [{ type: ELECTRONIC, sum: rubles(doc.totalKopecks) }],
      total: rubles(doc.totalKopecks),
    },
  };
}
