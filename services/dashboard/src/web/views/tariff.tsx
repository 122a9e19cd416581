import type { MethodTariff } from "@payaccept/contracts";
import { formatRubles } from "@payaccept/web-ui";
import { hundredthsInput } from "../amount-input.ts";
import type { Page } from "../page.ts";

/**
 * "0,70 %" or "2,50 % + 10,00 ₽, мин. 30,00 ₽" ("2.50% + ₽10.00, min ₽30.00"): a method's
 * commission as a merchant reads it, in the page's language, with no-break spaces so a narrow
 * column never leaves "%" or an amount alone on a line.
 */
export function tariffText(tariff: MethodTariff, page: Page): string {
  const { t } = page;
  const parts = [t.tariffPercentText(hundredthsInput(tariff.percentBp, page.lang))];
  if (tariff.fixedKopecks > 0) parts.push(`+\u00a0${formatRubles(tariff.fixedKopecks, page.lang)}`);
  const min = tariff.minKopecks > 0 ? `, ${t.tariffMinText(formatRubles(tariff.minKopecks, page.lang))}` : "";
  return parts.join(" ") + min;
}
