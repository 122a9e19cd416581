import type { MethodTariff, PaymentMethod, Tariff } from "@payaccept/contracts";

/**
 * round_half_up(amount × percentBp / 10000) + fixedKopecks, at least minKopecks.
 * amount ≤ 1e10 and percentBp ≤ 1e4, so the product stays below 2^53 and the arithmetic is exact.
 */
export function commissionFor(amountKopecks: number, t: MethodTariff): number {
  const percent = Math.floor((amountKopecks * t.percentBp + 5000) / 10000);
  return Math.max(percent + t.fixedKopecks, t.minKopecks);
}

/**
 * The commission shown before the buyer picks a method: the highest over the methods the buyer may
 * pick, so the merchant never sees a figure lower than the one finally charged. Recomputed on start.
 */
export function quoteCommission(amountKopecks: number, tariff: Tariff, methods: readonly PaymentMethod[]): number {
  return Math.max(0, ...methods.map((m) => commissionFor(amountKopecks, tariff[m])));
}
