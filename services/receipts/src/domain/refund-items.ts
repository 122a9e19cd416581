import type { ReceiptItem } from "@payaccept/contracts";

/**
 * The lines of a refund receipt of `amountKopecks`: the sale's lines, each taking back its share of
 * what is still refundable on it (the sale's amount minus earlier refund receipts), proportionally,
 * with the kopecks the rounding leaves over going one each to the lines with the largest
 * remainders (ties: the earlier line). No line ever takes back more than is left on it, and the
 * lines always add up to the amount. A line refunded whole and untouched before keeps its quantity
 * and price; a part of a line is one unit at the refunded amount, so price × quantity = amount
 * holds on every line as the register requires. Lines with nothing to take back are left out.
 */
export function refundItems(
  sale: readonly ReceiptItem[],
  refundedBefore: readonly number[],
  amountKopecks: number,
): { items: ReceiptItem[]; perLine: number[] } {
  const left = sale.map((item, i) => item.amountKopecks - (refundedBefore[i] ?? 0));
  const totalLeft = left.reduce((s, v) => s + v, 0);
  if (amountKopecks <= 0 || amountKopecks > totalLeft) throw new RangeError(`refund of ${amountKopecks} kopecks exceeds the ${totalLeft} kopecks left on the sale receipt`);
  const exact = left.map((l) => BigInt(l) * BigInt(amountKopecks));
  const share = exact.map((e) => Number(e / BigInt(totalLeft)));
  const remainders = exact.map((e, i) => ({ i, r: e % BigInt(totalLeft) }));
  let leftOver = amountKopecks - share.reduce((s, v) => s + v, 0);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (leftOver === 0) break;
    if (share[i]! < left[i]!) {
      share[i]!++;
      leftOver--;
    }
  }
  const items = sale.flatMap((item, i) => {
    const amount = share[i]!;
    if (amount === 0) return [];
    if (amount === item.amountKopecks) return [item];
    return [{ ...item, quantity: 1, priceKopecks: amount, amountKopecks: amount }];
  });
  return { items, perLine: share };
}
