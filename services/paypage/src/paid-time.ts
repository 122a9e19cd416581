import type { Lang } from "@payaccept/platform";

/** Buyers and merchants in Russia read times in Moscow time, labelled so that nobody guesses. */
const FORMATS: Record<Lang, [Intl.DateTimeFormat, string]> = {
  ru: [new Intl.DateTimeFormat("ru-RU", { timeZone: "Europe/Moscow", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit" }), "МСК"],
  en: [new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Moscow", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit" }), "Moscow time"],
};

/** "24 ноября 2026 г. в 07:15 МСК" / "24 November 2026 at 07:15 Moscow time". */
export function formatMoscowTime(iso: string, lang: Lang): string {
  const [format, zone] = FORMATS[lang];
  return `${format.format(new Date(iso))} ${zone}`;
}

/**
 * The payment's short reference for the buyer to quote: the last 8 hex digits of its id, in two
 * groups. A UUIDv7 begins with its creation time, shared by payments of the same minute; its end is random.
 */
export function shortReference(paymentId: string): string {
  const tail = paymentId.replaceAll("-", "").slice(-8).toUpperCase();
  return `${tail.slice(0, 4)}-${tail.slice(4)}`;
}
