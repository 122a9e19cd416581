import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";

export const LANGS = ["ru", "en"] as const;
export type Lang = (typeof LANGS)[number];
const isLang = (v: unknown): v is Lang => v === "ru" || v === "en";
export const LANG_COOKIE = "pp_lang";

/**
 * Russian by default. `?lang=en` (or `ru`) switches and is remembered in a cookie, so the choice
 * survives the redirects of the payment flow.
 */
export function pickLang(c: Context, secureCookie: boolean): Lang {
  const asked = c.req.query("lang");
  if (isLang(asked)) {
    if (getCookie(c, LANG_COOKIE) !== asked) {
      setCookie(c, LANG_COOKIE, asked, { httpOnly: true, sameSite: "Lax", secure: secureCookie, path: "/", maxAge: 365 * 24 * 3600 });
    }
    return asked;
  }
  const remembered = getCookie(c, LANG_COOKIE);
  return isLang(remembered) ? remembered : "ru";
}

const ru = {
  pageTitle: "Оплата заказа",
  shop: "Магазин",
  order: "Заказ",
  purpose: "Назначение",
  amount: "К оплате",
  testBadge: "Тестовый платёж",
  testNote: "Платёж тестового магазина: деньги не списываются.",
  switchLang: "English",
  switchLangName: "Switch to English",
  chooseMethod: "Выберите способ оплаты",
  methodSBP: "СБП — по QR-коду или в приложении банка",
  methodCARD: "Банковская карта",
  continueSBP: "Оплатить через СБП",
  continueCARD: "Оплатить картой",
  sbpTitle: "Оплата через СБП",
  sbpScan: "Отсканируйте QR-код камерой телефона или в приложении банка и подтвердите перевод.",
  sbpQrLabel: "QR-код для оплаты через СБП",
  sbpOpenApp: "Открыть приложение банка",
  sbpWaiting: "Ждём подтверждения от банка. Страница обновится сама.",
  timeLeft: "Оплатите в течение",
  cardTitle: "Оплата картой",
  cardNumber: "Номер карты",
  cardExpiry: "Срок действия (ММ/ГГ)",
  cardExpiryPlaceholder: "ММ/ГГ",
  cardCvc: "CVC/CVV",
  cardHolder: "Имя владельца (как на карте)",
  cardPay: "Оплатить",
  cardNote: "Данные карты передаются напрямую банку и не проходят через наш сервер.",
  cardBadNumber: "Проверьте номер карты: в нём ошибка.",
  cardBadExpiry: "Укажите срок действия в формате ММ/ГГ; карта не должна быть просрочена.",
  cardBadCvc: "CVC — это 3 или 4 цифры на обороте карты.",
  waitingTitle: "Оплата начата",
  waitingText: "Ждём ответа банка. Страница обновится сама.",
  sandboxTitle: "Тестовый режим",
  sandboxText: "Выберите, чем закончится этот платёж:",
  sandboxSUCCESS: "Успешная оплата",
  sandboxFAILED: "Отказ банка",
  sandboxEXPIRED: "Истечение срока",
  successTitle: "Оплата прошла",
  successText: "Спасибо! Магазин получит подтверждение платежа.",
  failedTitle: "Оплата не прошла",
  failedText: "Банк отклонил платёж, деньги не списаны. Если вы всё-таки оплатили по QR-коду, страница обновится сама.",
  expiredTitle: "Время оплаты истекло",
  expiredText: "Счёт больше не ждёт оплаты. Если вы уже оплатили по QR-коду, страница обновится сама.",
  canceledTitle: "Счёт отменён",
  canceledText: "Этот счёт отменён магазином, оплатить его нельзя.",
  refundedTitle: "Платёж возвращён",
  refundedText: "Магазин вернул деньги за этот платёж.",
  returnToShop: "Вернуться в магазин",
  closePage: "Эту страницу можно закрыть.",
  notFoundTitle: "Платёж не найден",
  notFoundText: "Проверьте ссылку или запросите у магазина новую.",
  badRequestTitle: "Неверный запрос",
  badRequestText: "Запрос не удалось обработать. Вернитесь на страницу оплаты и попробуйте снова.",
  staleTitle: "Страница устарела",
  staleText: "Форма устарела или открыта в другом браузере. Откройте страницу оплаты заново.",
  unavailableTitle: "Сервис временно недоступен",
  unavailableText: "Мы не можем показать платёж прямо сейчас. Деньги не списаны. Попробуйте через минуту.",
  internalTitle: "Что-то пошло не так",
  internalText: "Мы уже разбираемся. Попробуйте обновить страницу чуть позже.",
  tooLargeTitle: "Слишком большой запрос",
  backToPayment: "Вернуться к оплате",
  tryAgain: "Попробовать снова",
  noMethods: "Для этого магазина сейчас нет доступных способов оплаты.",
  securePayment: "Безопасная оплата",
  noscriptRefresh: "Без JavaScript страница обновляется раз в 10 секунд.",
};

const en: typeof ru = {
  pageTitle: "Payment",
  shop: "Shop",
  order: "Order",
  purpose: "For",
  amount: "Amount due",
  testBadge: "Test payment",
  testNote: "A test shop's payment: no money moves.",
  switchLang: "Русский",
  switchLangName: "Переключить на русский",
  chooseMethod: "Choose how to pay",
  methodSBP: "SBP — QR code or your banking app",
  methodCARD: "Bank card",
  continueSBP: "Pay with SBP",
  continueCARD: "Pay by card",
  sbpTitle: "Pay with SBP",
  sbpScan: "Scan the QR code with your phone camera or banking app and confirm the transfer.",
  sbpQrLabel: "QR code to pay with SBP",
  sbpOpenApp: "Open banking app",
  sbpWaiting: "Waiting for the bank to confirm. This page updates by itself.",
  timeLeft: "Time left to pay",
  cardTitle: "Pay by card",
  cardNumber: "Card number",
  cardExpiry: "Expiry date (MM/YY)",
  cardExpiryPlaceholder: "MM/YY",
  cardCvc: "CVC/CVV",
  cardHolder: "Cardholder name (as on the card)",
  cardPay: "Pay",
  cardNote: "Card details go straight to the bank and never pass through our server.",
  cardBadNumber: "Check the card number: it has a typo.",
  cardBadExpiry: "Enter the expiry date as MM/YY; the card must not be expired.",
  cardBadCvc: "The CVC is the 3 or 4 digits on the back of the card.",
  waitingTitle: "Payment started",
  waitingText: "Waiting for the bank. This page updates by itself.",
  sandboxTitle: "Test mode",
  sandboxText: "Choose how this payment ends:",
  sandboxSUCCESS: "Successful payment",
  sandboxFAILED: "Bank declines",
  sandboxEXPIRED: "Let it expire",
  successTitle: "Payment successful",
  successText: "Thank you! The shop will receive the confirmation.",
  failedTitle: "Payment failed",
  failedText: "The bank declined the payment; no money was taken. If you did pay by QR code after all, this page updates by itself.",
  expiredTitle: "Payment time is over",
  expiredText: "This invoice no longer awaits payment. If you already paid by QR code, this page updates by itself.",
  canceledTitle: "Invoice canceled",
  canceledText: "This invoice was canceled by the shop and cannot be paid.",
  refundedTitle: "Payment refunded",
  refundedText: "The shop has refunded this payment.",
  returnToShop: "Return to the shop",
  closePage: "You can close this page.",
  notFoundTitle: "Payment not found",
  notFoundText: "Check the link or ask the shop for a new one.",
  badRequestTitle: "Bad request",
  badRequestText: "The request could not be processed. Go back to the payment page and try again.",
  staleTitle: "This page has expired",
  staleText: "The form is out of date or was opened in another browser. Open the payment page again.",
  unavailableTitle: "Temporarily unavailable",
  unavailableText: "We cannot show the payment right now. No money was taken. Please try again in a minute.",
  internalTitle: "Something went wrong",
  internalText: "We are looking into it. Please reload the page a bit later.",
  tooLargeTitle: "Request too large",
  backToPayment: "Back to the payment",
  tryAgain: "Try again",
  noMethods: "This shop has no payment methods available right now.",
  securePayment: "Secure payment",
  noscriptRefresh: "Without JavaScript this page reloads every 10 seconds.",
};

export type Messages = typeof ru;
export const MESSAGES: Record<Lang, Messages> = { ru, en };
