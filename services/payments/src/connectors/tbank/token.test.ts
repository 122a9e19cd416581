import { describe, expect, test } from "bun:test";
import { tbankToken, tokenMatches } from "./token.ts";

/** The two worked examples of T-Bank's documentation (an Init, a notification): test vectors. */
describe("T-Bank Token", () => {
  test("the Init example: nested DATA and Receipt are left out", () => {
    const init = {
      TerminalKey: "MerchantTerminalKey",
      Amount: 19200,
      OrderId: "21090",
      Description: "Подарочная карта на 1000 рублей",
      DATA: { Phone: "+71234567890", Email: "a@test.com" },
      Receipt: { Email: "a@test.ru", Phone: "+79031234567", Taxation: "osn", Items: [{ Name: "Наименование товара 1", Price: 10000, Quantity: 1, Amount: 10000, Tax: "vat10" }] },
    };
    expect(tbankToken(init, "usaf8fw8fsw21g")).toBe("0024a00af7c350a3a67ca168ce06502aa72772456662e38696d48b56ee9c97d9");
  });

  test("the notification example: booleans and numbers as their JSON text, the Token itself left out", () => {
    const notification = {
      TerminalKey: "1321054611234DEMO",
      OrderId: "201709",
      Success: true,
      Status: "AUTHORIZED",
      PaymentId: 8742591,
      ErrorCode: "0",
      Amount: 9855,
      RebillId: 101709,
      CardId: 322264,
      Pan: "430000******0777",
      ExpDate: "1122",
      Token: "b906d28e76c6428e37b25fcf86c0adc52c63d503013fdd632e300593d165766b",
    };
    expect(tbankToken(notification, "Dfsfh56dgKl")).toBe(notification.Token);
    expect(tokenMatches(notification, "Dfsfh56dgKl")).toBe(true);
    expect(tokenMatches({ ...notification, Amount: 9856 }, "Dfsfh56dgKl")).toBe(false);
    expect(tokenMatches({ ...notification, Success: false }, "Dfsfh56dgKl")).toBe(false);
    expect(tokenMatches(notification, "another-password")).toBe(false);
    const { Token: _, ...unsigned } = notification;
    expect(tokenMatches(unsigned, "Dfsfh56dgKl")).toBe(false);
  });
});
