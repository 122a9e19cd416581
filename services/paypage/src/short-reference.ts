/**
 * The payment's short reference for the buyer to quote: the last 8 hex digits of its id, in two
 * groups. A UUIDv7 begins with its creation time, shared by payments of the same minute; its end is random.
 */
export function shortReference(paymentId: string): string {
  const tail = paymentId.replaceAll("-", "").slice(-8).toUpperCase();
  return `${tail.slice(0, 4)}-${tail.slice(4)}`;
}
