import { moscowWallClock } from "@payaccept/domain";
import type { Lang } from "./lang.ts";

/*
 * How pages show Moscow time (the rules themselves are in ../moscow-time.ts). Buyers and merchants
 * in Russia read times in Moscow time.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** "2026-11-22T11:05:09Z" → "22.11.2026 14:05" (ru) or "2026-11-22 14:05" (en): the dashboard's tables. */
export function formatMoscow(instant: string | number, lang: Lang): string {
  const shifted = moscowWallClock(instant).toISOString();
  const [date, time] = [shifted.slice(0, 10), shifted.slice(11, 16)];
  return lang === "en" ? `${date} ${time}` : `${formatDay(date, lang)} ${time}`;
}

/** A YYYY-MM-DD as it reads in the interface. */
export function formatDay(day: string, lang: Lang): string {
  const [, y, m, d] = DAY.exec(day) ?? [];
  return lang === "en" || !y ? day : `${d}.${m}.${y}`;
}

/**
 * The wall clock is already Moscow's, so the formats read it as UTC. Made at the first use: a
 * DateTimeFormat loads its locale's data, about 4 MiB resident in a process that may never show
 * a long date (docs/performance.md, "Memory").
 */
let long: Record<Lang, [Intl.DateTimeFormat, string]> | undefined;
const longFormats = () => (long ??= {
  ru: [new Intl.DateTimeFormat("ru-RU", { timeZone: "UTC", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit" }), "МСК"],
  en: [new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit" }), "Moscow time"],
});

/** "24 ноября 2026 г. в 07:15 МСК" / "24 November 2026 at 07:15 Moscow time": labelled, so that nobody guesses the zone. */
export function formatMoscowLong(instant: string | number, lang: Lang): string {
  const [format, zone] = longFormats()[lang];
  return `${format.format(moscowWallClock(instant))} ${zone}`;
}
