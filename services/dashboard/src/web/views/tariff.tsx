import type { MethodTariff } from "@payaccept/contracts";
import { formatRubles } from "@payaccept/web-ui";
import { hundredthsInput } from "../amount-input.ts";
import type { Page } from "../page.ts";

/** "0,70 %" or "2,50 % + 10,00 ₽, min 30,00 ₽": a method's commission as a merchant reads it. */
export function tariffText(tariff: MethodTariff, page: Page): string {
  const parts = [`${hundredthsInput(tariff.percentBp, page.lang)} %`];
  if (tariff.fixedKopecks > 0) parts.push(`+ ${formatRubles(tariff.fixedKopecks, page.lang)}`);
  const min = tariff.minKopecks > 0 ? `, min ${formatRubles(tariff.minKopecks, page.lang)}` : "";
  return parts.join(" ") + min;
}
