import { PAYMENT_METHODS, type DailyRefundsRow, type DailyStatsRow, type DeliveryHealth, type PaymentMethod, type PaymentStatus } from "@payaccept/contracts";
import { nextDay } from "@payaccept/domain";
import { HELD, PAID } from "../paid.ts";

/** The buyer paid: the money taken, or held for the shop to capture (a hold's buyer did pay). */
const BUYER_PAID: readonly PaymentStatus[] = [...PAID, ...HELD];
/** Where the buyer's attempt is over: paid (or held), declined, or out of time. PENDING is undecided, CANCELED the merchant's call. */
const DECIDED: readonly PaymentStatus[] = [...BUYER_PAID, "FAILED", "EXPIRED"];

export type DayFigures = { day: string; count: number; sumKopecks: number };
export type MethodRate = { method: PaymentMethod; paid: number; decided: number };

export type OverviewFigures = {
  /** Every day of the period, oldest first, zero where nothing was paid. */
  days: DayFigures[];
  created: number;
  paid: { count: number; sumKopecks: number };
  /** Holds waiting for the shop's capture: not turnover yet. */
  held: { count: number; sumKopecks: number };
  refunds: { count: number; sumKopecks: number };
  methods: MethodRate[];
};

/** Every Moscow day from `from` to `to` inclusive. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = nextDay(day)) days.push(day);
  return days;
}

/** The overview's figures from the daily rollups (rpcs.payments.stats): payments, and refunds by the day they ended. */
export function overviewFigures(stats: { rows: DailyStatsRow[]; refunds: DailyRefundsRow[] }, from: string, to: string): OverviewFigures {
  const { rows } = stats;
  const byDay = new Map(daysOf(from, to).map((day) => [day, { day, count: 0, sumKopecks: 0 }]));
  const figures: OverviewFigures = { days: [...byDay.values()], created: 0, paid: { count: 0, sumKopecks: 0 }, held: { count: 0, sumKopecks: 0 }, refunds: { count: 0, sumKopecks: 0 }, methods: [] };
  const methods = new Map(PAYMENT_METHODS.map((method) => [method, { method, paid: 0, decided: 0 }]));
  for (const row of rows) {
    figures.created += row.count;
    if (PAID.includes(row.status)) {
      const day = byDay.get(row.day);
      if (day) {
        day.count += row.count;
        day.sumKopecks += row.sumKopecks;
      }
      figures.paid.count += row.count;
      figures.paid.sumKopecks += row.sumKopecks;
    }
    if (HELD.includes(row.status)) {
      figures.held.count += row.count;
      figures.held.sumKopecks += row.sumKopecks;
    }
    const rate = row.method && methods.get(row.method);
    if (rate && DECIDED.includes(row.status)) {
      rate.decided += row.count;
      if (BUYER_PAID.includes(row.status)) rate.paid += row.count;
    }
  }
  figures.methods = [...methods.values()];
  for (const refund of stats.refunds) {
    figures.refunds.count += refund.count;
    figures.refunds.sumKopecks += refund.sumKopecks;
  }
  return figures;
}

export type HealthFigures = { firstSent: number; firstAttempt: number; failing: DeliveryHealth[]; unsent: DeliveryHealth[] };

/**
 * Webhook health over the shops: of the events whose first attempt went to a URL, how many it
 * delivered; the shops whose endpoint fails; and apart, the shops whose events were not sent for
 * want of a URL (no endpoint, nothing failing: Stripe counts such events nowhere).
 */
export function healthFigures(shops: DeliveryHealth[]): HealthFigures {
  return {
    firstSent: shops.reduce((n, s) => n + s.firstSent, 0),
    firstAttempt: shops.reduce((n, s) => n + s.firstAttempt, 0),
    failing: shops.filter((s) => s.failed + s.retrying > 0),
    unsent: shops.filter((s) => s.unsent > 0),
  };
}

/** A share as whole percent, or undefined when there is nothing to divide. */
export const percent = (part: number, whole: number) => (whole === 0 ? undefined : Math.round((part / whole) * 100));
