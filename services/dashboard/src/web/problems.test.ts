import { expect, test } from "bun:test";
import { MESSAGES } from "./i18n.ts";
import { describeProblems } from "./problems.ts";

test("field names and known reasons read in Russian; unknown ones pass through", () => {
  expect(
    describeProblems(["webhookUrl: must use https", "successUrl: Too big: expected string to have <=300 characters", "name: something new"], MESSAGES.ru),
  ).toEqual(["URL вебхука: нужен адрес https://", "Ссылка после успешной оплаты: не длиннее 300 символов", "Название: something new"]);
  expect(describeProblems("payout of 500 kopecks exceeds the available balance 100 kopecks", MESSAGES.ru)).toEqual(["сумма больше доступного баланса"]);
});

test("in English the services' words are kept, with readable field names", () => {
  expect(describeProblems(["webhookUrl: must use https"], MESSAGES.en)).toEqual(["Webhook URL: must use https"]);
});
