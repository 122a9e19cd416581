import { expect, test } from "bun:test";
import { pluralRu } from "./i18n.ts";

test("Russian plurals follow the locale's rule: one, few, many, the teens always many", () => {
  const forms = (n: number) => pluralRu(n, "платёж", "платежа", "платежей");
  expect([0, 1, 2, 4, 5, 11, 12, 14, 21, 22, 25, 101, 111, 1000].map((n) => `${n} ${forms(n)}`)).toEqual([
    "0 платежей",
    "1 платёж",
    "2 платежа",
    "4 платежа",
    "5 платежей",
    "11 платежей",
    "12 платежей",
    "14 платежей",
    "21 платёж",
    "22 платежа",
    "25 платежей",
    "101 платёж",
    "111 платежей",
    "1000 платежей",
  ]);
});
