import {
  fillTemplate,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  REASONS,
  SERVICE_NAMES,
  type IssueRule,
  type ParamKind,
  type Reason,
  type ValidationIssue,
  ZOD_ISSUE_CODES,
} from "@payaccept/contracts";
import type { Lang } from "./lang.ts";
import { formatRubles } from "./money.ts";

/**
 * What the pages (dashboard, payment page) say for every reason of the catalogue
 * (contracts reasons.ts), in each language: templates with the reason's `{param}`s, filled with
 * the parameters formatted for people (money as `2 437,99 ₽`, statuses and services by name).
 * One table for every page, so a new reason without words fails reason-text.test.ts, not a page.
 */
type ReasonTexts = Record<Reason, string>;

const ru: ReasonTexts = {
  VALIDATION_FAILED: "{issues}",
  MALFORMED_JSON: "Запрос не в формате JSON.",
  BODY_NOT_UTF8: "Тело запроса должно быть в кодировке UTF-8.",
  BODY_INCOMPLETE: "Тело запроса пришло не полностью.",
  BODY_REQUIRED: "Нужно тело запроса.",
  CONTENT_TYPE_NOT_JSON: "Нужен заголовок Content-Type: application/json.",
  CONTENT_ENCODING_UNSUPPORTED: "Тело запроса нужно отправлять без сжатия (без Content-Encoding).",
  BODY_TOO_LARGE: "Тело запроса длиннее {maxBytes} байт.",
  ROUTE_NOT_FOUND: "Адреса {method} {path} нет.",
  METHOD_NOT_ALLOWED: "Метод {method} здесь не поддерживается; можно: {allowed}.",
  API_KEY_INVALID: "Нет API-ключа или он неверный.",
  BEARER_TOKEN_INVALID: "Нет токена доступа или он неверный.",
  CALLBACK_SIGNATURE_INVALID: "Неверная подпись уведомления банка: {detail}.",
  RATE_LIMITED: "Слишком много запросов: не больше {limit} в минуту. Повторите через {retryAfterSeconds} с.",
  IDEMPOTENCY_KEY_INVALID: "{header}: от 1 до 64 печатных символов ASCII.",
  IDEMPOTENCY_KEY_REUSED: "{header} {key} уже использован с другим запросом; для нового запроса нужен новый ключ.",
  IDEMPOTENCY_KEY_IN_PROGRESS: "Запрос с {header} {key} ещё выполняется; повторите позже.",
  CSRF_TOKEN_INVALID: "Форма устарела. Обновите страницу и повторите.",
  FORM_TOO_LARGE: "Слишком большая форма.",
  PAGE_NOT_FOUND: "Такой страницы нет.",
  INTERNAL: "Внутренняя ошибка. Мы уже разбираемся.",
  SERVICE_UNAVAILABLE: "{service} сейчас не отвечает. Попробуйте через минуту.",
  PAYMENT_NOT_FOUND: "Платёж не найден.",
  SHOP_NOT_ACTIVE: "Магазин отключён.",
  METHOD_NOT_AVAILABLE: "Способ оплаты «{method}» недоступен этому магазину.",
  NO_METHOD_AVAILABLE: "У магазина нет ни одного способа оплаты.",
  ORDER_ID_TAKEN: "Платёж с таким номером заказа уже есть.",
  CANCEL_WHILE_PAYING: "Покупатель уже начал оплату — дождитесь итогового статуса.",
  PAYMENT_NOT_CANCELABLE: "Платёж в статусе «{status}», отменить его уже нельзя.",
  SHOP_NOT_IN_DIRECTORY: "Сведения о магазине ещё не дошли до сервиса платежей. Попробуйте через минуту.",
  PAYMENT_NOT_PAYABLE: "Платёж в статусе «{status}», оплатить его нельзя.",
  SHOP_NOT_ACCEPTING: "Магазин сейчас не принимает платежи.",
  PAYMENT_METHOD_FIXED: "Этот платёж оплачивается только способом «{method}».",
  PAYMENT_BEING_PAID: "Платёж уже оплачивается способом «{method}».",
  SANDBOX_OUTCOME_LIVE_PAYMENT: "Исход выбирается только у тестового платежа.",
  SANDBOX_OUTCOME_NOT_PENDING: "Платёж в статусе «{status}»; исход выбирается, пока платёж оплачивается.",
  PAYMENT_METHOD_UNKNOWN: "Неизвестный способ оплаты.",
  SANDBOX_OUTCOME_UNKNOWN: "Неизвестный исход.",
  PROVIDER_UNAVAILABLE: "Банк сейчас не отвечает; ничего не изменилось, попробуйте ещё раз.",
  PROVIDER_NO_ANSWER: "Банк не ответил вовремя. Итог придёт вебхуком, или повторите запрос — повтор безопасен.",
  PROVIDER_REFUSED: "Банк отклонил запрос.",
  CARD_DECLINED: "Банк отклонил карту.",
  INSUFFICIENT_FUNDS: "Банк отклонил платёж: на карте или счёте недостаточно денег.",
  CARD_EXPIRED: "Срок действия карты истёк.",
  CARD_LIMIT_EXCEEDED: "Банк отклонил платёж: превышен лимит карты или счёта.",
  CARD_DETAILS_INVALID: "Банк отклонил платёж: данные карты указаны неверно.",
  METHOD_REVOKED: "Сохранённый способ оплаты отозван.",
  AUTHENTICATION_REQUIRED: "Банк просит покупателя подтвердить платёж.",
  AUTHENTICATION_FAILED: "Покупатель не прошёл подтверждение платежа в банке (3-D Secure).",
  DECLINED_BY_BUYER: "Покупатель отклонил платёж в приложении банка.",
  PROVIDER_DECLINED: "Банк отклонил платёж: {detail}.",
  SAVED_METHOD_INACTIVE: "Сохранённый способ оплаты больше не действует ({status}): списать с него нельзя.",
  PAYMENT_NOT_CAPTURABLE: "Платёж в статусе «{status}»: списать можно только заблокированную сумму.",
  CAPTURE_RECEIPT_REQUIRED: "При списании части суммы по платежу с чеком нужны позиции чека на списываемую сумму.",
  SANDBOX_OUTCOME_NOT_APPLICABLE: "Платёж в статусе «{status}»; исход {outcome} к нему не применим.",
  REFUND_NOT_SUCCESS: "Вернуть можно только оплаченный платёж, а этот — в статусе «{status}».",
  REFUND_ALREADY_FULL: "Платёж уже возвращён целиком.",
  REFUND_NOTHING_LEFT: "Возвращать больше нечего: возвращено {refundedKopecks}, в незавершённых возвратах — {refundingKopecks}.",
  REFUND_EXCEEDS_REFUNDABLE:
    "Сумма возврата {refundKopecks} больше, чем осталось вернуть: {refundableKopecks} из {paymentKopecks} (в незавершённых возвратах — {refundingKopecks}).",
  REFUND_EXCEEDS_AVAILABLE:
    "Для возврата не хватает баланса: с баланса нужно списать {neededKopecks}, а доступно {availableKopecks} (и {frozenKopecks} из замороженных поступлений этого платежа).",
  REFUND_NO_PROVIDER_SESSION: "У платежа нет сессии в банке, вернуть его нельзя.",
  REFUND_DECLINED: "Банк отклонил возврат ({detail}), деньги не списаны.",
  REFUND_FAILED: "Возврат не выполнен.",
  PAYOUT_EXCEEDS_AVAILABLE: "Сумма выплаты {payoutKopecks} больше доступного баланса {availableKopecks}.",
  PAYOUT_KEY_REUSED: "Ключ идемпотентности {key} уже использован для выплаты {amountKopecks}.",
  DELIVERY_NOT_FOUND: "Доставка не найдена.",
  WEBHOOK_URL_MISSING: "Не указан URL вебхука.",
  WEBHOOK_URL_INVALID: "URL вебхука — не адрес URL.",
  WEBHOOK_URL_SCHEME: "Схема URL вебхука {scheme} — не http и не https.",
  WEBHOOK_HOST_NO_ADDRESS: "У адреса {host} нет IP-адреса.",
  WEBHOOK_ADDRESS_BLOCKED: "Заблокировано: {host} — не публичный адрес.",
  WEBHOOK_HTTP_STATUS: "Ваш сервер ответил HTTP {httpStatus}.",
  WEBHOOK_REDIRECT: "Ваш сервер ответил HTTP {httpStatus}: переадресации не выполняются.",
  WEBHOOK_TIMEOUT: "Нет ответа за {timeoutMs} мс.",
  WEBHOOK_CONNECTION_FAILED: "Не удалось соединиться: {detail}.",
  SHOP_NOT_FOUND: "Магазин не найден.",
  CONNECTORS_NOT_FOR_SANDBOX: "Платежи тестового магазина не доходят до банка: эквайеры ему не назначаются.",
  ACCOUNT_NOT_FOUND: "Кабинет не найден.",
  ACCOUNT_HAS_USER: "У этого кабинета уже есть команда: её владелец приглашает новых участников в кабинете.",
  EMAIL_TAKEN: "Этот email уже зарегистрирован.",
  ROLE_FORBIDDEN: "Ваша роль ({role}) этого не позволяет.",
  OWNER_ONLY: "Назначать, менять и снимать роль владельца может только владелец.",
  LAST_OWNER: "Последний владелец не может уйти из команды или сменить роль: сначала сделайте владельцем другого участника.",
  MEMBER_NOT_FOUND: "Такого участника в команде нет.",
  USER_NOT_FOUND: "С этим email в кабинет никто не входит.",
  INVITE_NOT_FOUND: "Приглашение недействительно: им уже воспользовались, его отозвали или срок истёк.",
  INVITEE_HAS_SIGN_IN: "С этим адресом уже входят в кабинет: один вход принадлежит одному кабинету.",
  TWO_FACTOR_NOT_ENABLED: "Сначала включите двухфакторный вход для себя.",
  TWO_FACTOR_REQUIRED_BY_TEAM: "В вашей команде двухфакторный вход обязателен: отключить его нельзя.",
  KEY_SHOP_INACTIVE: "Ключ выпускается только для активного магазина.",
  DIRECTORY_PUBLISH_PENDING: "Изменение сохранено и вступит в силу, как только справочник магазинов снова станет доступен.",
  PERIOD_INVALID: "Неверный период.",
  REFUND_AMOUNT_INVALID: "Укажите сумму возврата в рублях, например 1500 или 1500,50.",
  CAPTURE_AMOUNT_INVALID: "Укажите сумму списания в рублях, например 1500 или 1500,50.",
  SESSION_NOT_FOUND: "Сессия не найдена.",
  SESSION_AMOUNT_MISMATCH: "Сессия для этого платежа и способа уже есть, с другой суммой.",
  SESSION_ALREADY_PAID: "Сессия уже оплачена или сумма по ней заблокирована.",
  SESSION_TERMS_MISMATCH: "Сессия с этим идентификатором уже есть, с другим значением {field}.",
  HOLD_NOT_FOR_SBP: "Платёж по СБП нельзя провести в две стадии: блокировка суммы бывает только для карт.",
  SESSION_NOT_HELD: "Сумма по этой сессии не блокировалась: она оплачивается сразу.",
  HOLD_NOT_AUTHORIZED: "Сессия в статусе {status}: сумма ещё не заблокирована.",
  HOLD_ALREADY_CAPTURED: "Заблокированная сумма уже списана: {capturedKopecks}.",
  HOLD_VOIDED: "Блокировка уже снята ({detail}), списать нечего.",
  CAPTURE_EXCEEDS_HOLD: "Сумма больше заблокированной: {heldKopecks}.",
  METHOD_NOT_FOUND: "Сохранённый способ оплаты не найден.",
  SESSION_NOT_PAID: "Вернуть можно только оплаченную сессию.",
  SESSION_REFUND_EXCEEDS: "Сумма больше, чем осталось от оплаты: {leftKopecks}.",
  RECEIPT_NOT_FOUND: "Чек не найден.",
  RECEIPT_NOT_RESENDABLE: "Чек в статусе {status}; повторно отправить можно только чек с ошибкой.",
  DOCUMENT_NOT_FOUND: "Документ не найден.",
  DOCUMENT_BODY_MISMATCH: "Документ с этим externalId уже есть, с другим содержимым.",
  REGISTER_DOWN: "Касса недоступна (переключатель песочницы).",
  REGISTER_TIMEOUT: "Касса не ответила за {timeoutMs} мс.",
  REGISTER_UNREACHABLE: "Касса недоступна: {detail}.",
  REGISTER_HTTP_STATUS: "Касса ответила HTTP {httpStatus}.",
  REGISTER_BAD_REPLY: "Ответ кассы не по протоколу.",
  RECEIPT_NOT_FISCALISED_YET: "Касса ещё не фискализировала чек.",
  RECEIPT_REFUSED_BY_REGISTER: "Касса отказала: {detail}.",
  REGISTER_ERROR: "Касса ответила ошибкой {code} ({type}): {text}.",
  REGISTER_REFUSED: "Касса отказала, нужно вмешательство: ошибка {code} ({type}): {text}.",
  RECEIPT_TAXATION_NOT_REGISTERED: "Касса не зарегистрирована для системы налогообложения {taxation}, нужно вмешательство.",
};

const en: ReasonTexts = {
  VALIDATION_FAILED: "{issues}",
  MALFORMED_JSON: "The request is not valid JSON.",
  BODY_NOT_UTF8: "The request body must be UTF-8.",
  BODY_INCOMPLETE: "The request body was not received in full.",
  BODY_REQUIRED: "A request body is required.",
  CONTENT_TYPE_NOT_JSON: "Content-Type must be application/json.",
  CONTENT_ENCODING_UNSUPPORTED: "Send the request body uncompressed (no Content-Encoding).",
  BODY_TOO_LARGE: "The request body is longer than {maxBytes} bytes.",
  ROUTE_NOT_FOUND: "There is no {method} {path}.",
  METHOD_NOT_ALLOWED: "Method {method} is not allowed here; allowed: {allowed}.",
  API_KEY_INVALID: "Missing or invalid API key.",
  BEARER_TOKEN_INVALID: "Missing or invalid bearer token.",
  CALLBACK_SIGNATURE_INVALID: "Invalid callback signature: {detail}.",
  RATE_LIMITED: "Too many requests: at most {limit} a minute. Retry in {retryAfterSeconds} s.",
  IDEMPOTENCY_KEY_INVALID: "{header}: 1 to 64 printable ASCII characters.",
  IDEMPOTENCY_KEY_REUSED: "{header} {key} was already used with another request; a new request needs a new key.",
  IDEMPOTENCY_KEY_IN_PROGRESS: "A request with {header} {key} is still in progress; retry later.",
  CSRF_TOKEN_INVALID: "The form has expired. Reload the page and try again.",
  FORM_TOO_LARGE: "The form is too large.",
  PAGE_NOT_FOUND: "There is no such page.",
  INTERNAL: "Internal error. We are looking into it.",
  SERVICE_UNAVAILABLE: "{service} is not responding. Please try again in a minute.",
  PAYMENT_NOT_FOUND: "Payment not found.",
  SHOP_NOT_ACTIVE: "The shop is disabled.",
  METHOD_NOT_AVAILABLE: "The payment method “{method}” is not available to this shop.",
  NO_METHOD_AVAILABLE: "The shop has no payment method.",
  ORDER_ID_TAKEN: "A payment with this order number already exists.",
  CANCEL_WHILE_PAYING: "The buyer has already started paying; wait for the final status.",
  PAYMENT_NOT_CANCELABLE: "The payment is “{status}” and can no longer be canceled.",
  SHOP_NOT_IN_DIRECTORY: "The shop's details have not reached the payments service yet. Please try again in a minute.",
  PAYMENT_NOT_PAYABLE: "The payment is “{status}” and cannot be paid.",
  SHOP_NOT_ACCEPTING: "The shop is not accepting payments now.",
  PAYMENT_METHOD_FIXED: "This payment can only be paid by “{method}”.",
  PAYMENT_BEING_PAID: "The payment is already being paid by “{method}”.",
  SANDBOX_OUTCOME_LIVE_PAYMENT: "Only a test payment takes a chosen outcome.",
  SANDBOX_OUTCOME_NOT_PENDING: "The payment is “{status}”; an outcome is chosen while it is being paid.",
  PAYMENT_METHOD_UNKNOWN: "Unknown payment method.",
  SANDBOX_OUTCOME_UNKNOWN: "Unknown outcome.",
  PROVIDER_UNAVAILABLE: "The bank is not responding; nothing changed, please try again.",
  PROVIDER_NO_ANSWER: "The bank did not answer in time. The outcome arrives by webhook, or repeat the request: it is safe to repeat.",
  PROVIDER_REFUSED: "The bank refused the request.",
  CARD_DECLINED: "The bank declined the card.",
  INSUFFICIENT_FUNDS: "The bank declined the payment: not enough money on the card or account.",
  CARD_EXPIRED: "The card has expired.",
  CARD_LIMIT_EXCEEDED: "The bank declined the payment: a limit of the card or account was reached.",
  CARD_DETAILS_INVALID: "The bank declined the payment: the card's details are wrong.",
  METHOD_REVOKED: "The saved payment method was revoked.",
  AUTHENTICATION_REQUIRED: "The bank asks the buyer to confirm the payment.",
  AUTHENTICATION_FAILED: "The buyer did not pass the bank's confirmation (3-D Secure).",
  DECLINED_BY_BUYER: "The buyer declined the payment in the bank app.",
  PROVIDER_DECLINED: "The bank declined the payment: {detail}.",
  SAVED_METHOD_INACTIVE: "The saved payment method is no longer valid ({status}) and cannot be charged.",
  PAYMENT_NOT_CAPTURABLE: "The payment is {status}: only a held amount can be captured.",
  CAPTURE_RECEIPT_REQUIRED: "A partial capture of a payment with a receipt needs the receipt's items for the captured amount.",
  SANDBOX_OUTCOME_NOT_APPLICABLE: "The payment is {status}; the outcome {outcome} does not apply to it.",
  REFUND_NOT_SUCCESS: "Only a paid payment can be refunded; this one is “{status}”.",
  REFUND_ALREADY_FULL: "The payment is already fully refunded.",
  REFUND_NOTHING_LEFT: "Nothing is left to refund: {refundedKopecks} refunded, {refundingKopecks} in refunds still in progress.",
  REFUND_EXCEEDS_REFUNDABLE:
    "A refund of {refundKopecks} is more than is left to refund: {refundableKopecks} of {paymentKopecks} ({refundingKopecks} in refunds still in progress).",
  REFUND_EXCEEDS_AVAILABLE:
    "The balance cannot cover the refund: it takes {neededKopecks} from the balance, which has {availableKopecks} available ({frozenKopecks} more from this payment's frozen receipts).",
  REFUND_NO_PROVIDER_SESSION: "The payment has no bank session, so it cannot be refunded.",
  REFUND_DECLINED: "The bank declined the refund ({detail}); no money moved.",
  REFUND_FAILED: "The refund failed.",
  PAYOUT_EXCEEDS_AVAILABLE: "A payout of {payoutKopecks} is more than the available balance {availableKopecks}.",
  PAYOUT_KEY_REUSED: "Idempotency key {key} was already used for a payout of {amountKopecks}.",
  DELIVERY_NOT_FOUND: "Delivery not found.",
  WEBHOOK_URL_MISSING: "No webhook URL is set.",
  WEBHOOK_URL_INVALID: "The webhook URL is not a URL.",
  WEBHOOK_URL_SCHEME: "The webhook URL's scheme {scheme} is neither http nor https.",
  WEBHOOK_HOST_NO_ADDRESS: "{host} has no IP address.",
  WEBHOOK_ADDRESS_BLOCKED: "Blocked: {host} is not a public address.",
  WEBHOOK_HTTP_STATUS: "Your server replied HTTP {httpStatus}.",
  WEBHOOK_REDIRECT: "Your server replied HTTP {httpStatus}: redirects are not followed.",
  WEBHOOK_TIMEOUT: "No reply within {timeoutMs} ms.",
  WEBHOOK_CONNECTION_FAILED: "Could not connect: {detail}.",
  SHOP_NOT_FOUND: "Shop not found.",
  CONNECTORS_NOT_FOR_SANDBOX: "A sandbox shop's payments never reach a bank: it takes no acquirers.",
  ACCOUNT_NOT_FOUND: "Account not found.",
  ACCOUNT_HAS_USER: "This account already has its team: its owner invites more members in the dashboard.",
  EMAIL_TAKEN: "This email is already registered.",
  ROLE_FORBIDDEN: "Your role ({role}) does not allow this.",
  OWNER_ONLY: "Only an owner can grant, change or remove the owner role.",
  LAST_OWNER: "The team's last owner cannot leave or change role: make another member an owner first.",
  MEMBER_NOT_FOUND: "No such member of this team.",
  USER_NOT_FOUND: "No one signs in to the dashboard with this email.",
  INVITE_NOT_FOUND: "This invitation is not valid: it was used, withdrawn or has expired.",
  INVITEE_HAS_SIGN_IN: "This address already signs in to the dashboard: one sign-in belongs to one account.",
  TWO_FACTOR_NOT_ENABLED: "Turn on two-factor sign-in for yourself first.",
  TWO_FACTOR_REQUIRED_BY_TEAM: "Your team requires two-factor sign-in: it cannot be turned off.",
  KEY_SHOP_INACTIVE: "Keys are issued only for an active shop.",
  DIRECTORY_PUBLISH_PENDING: "The change is saved and takes effect as soon as the shop directory is reachable again.",
  PERIOD_INVALID: "Invalid period.",
  REFUND_AMOUNT_INVALID: "Enter the refund amount in rubles, e.g. 1500 or 1500.50.",
  CAPTURE_AMOUNT_INVALID: "Enter the amount to capture in rubles, e.g. 1500 or 1500.50.",
  SESSION_NOT_FOUND: "Session not found.",
  SESSION_AMOUNT_MISMATCH: "A session for this payment and method exists with another amount.",
  SESSION_ALREADY_PAID: "The session is already paid or its amount held.",
  SESSION_TERMS_MISMATCH: "A session with this id exists with another {field}.",
  HOLD_NOT_FOR_SBP: "SBP payments cannot be held: two-stage payments are for cards only.",
  SESSION_NOT_HELD: "The session is not a hold: it is paid in one stage.",
  HOLD_NOT_AUTHORIZED: "The session is {status}: no amount is held yet.",
  HOLD_ALREADY_CAPTURED: "The hold was already captured: {capturedKopecks}.",
  HOLD_VOIDED: "The hold was released ({detail}); nothing can be captured.",
  CAPTURE_EXCEEDS_HOLD: "The amount is more than the amount held: {heldKopecks}.",
  METHOD_NOT_FOUND: "Saved payment method not found.",
  SESSION_NOT_PAID: "Only a paid session can be refunded.",
  SESSION_REFUND_EXCEEDS: "The amount is more than is left of the paid amount: {leftKopecks}.",
  RECEIPT_NOT_FOUND: "Receipt not found.",
  RECEIPT_NOT_RESENDABLE: "The receipt is {status}; only a failed receipt can be resent.",
  DOCUMENT_NOT_FOUND: "Document not found.",
  DOCUMENT_BODY_MISMATCH: "A document with this externalId exists with another body.",
  REGISTER_DOWN: "The register is down (sandbox switch).",
  REGISTER_TIMEOUT: "The register did not answer within {timeoutMs} ms.",
  REGISTER_UNREACHABLE: "The register is unreachable: {detail}.",
  REGISTER_HTTP_STATUS: "The register answered HTTP {httpStatus}.",
  REGISTER_BAD_REPLY: "The register's reply does not follow the protocol.",
  RECEIPT_NOT_FISCALISED_YET: "The register has not fiscalised the receipt yet.",
  RECEIPT_REFUSED_BY_REGISTER: "The register refused it: {detail}.",
  REGISTER_ERROR: "The register answered error {code} ({type}): {text}.",
  REGISTER_REFUSED: "The register refused it, a person must act: error {code} ({type}): {text}.",
  RECEIPT_TAXATION_NOT_REGISTERED: "The register is not registered for the taxation system {taxation}: a person must act.",
};

/**
 * A validation issue's words: by zod's issue code, more precisely by code and origin/format
 * (`too_big.string`), and for our own rules (`custom`) by rule. The field comes first, by name.
 */
type IssueTexts = Record<(typeof ZOD_ISSUE_CODES)[number], string> & Partial<Record<string, string>>;

const ruIssues: IssueTexts = {
  invalid_type: "неверный тип значения",
  too_big: "слишком большое значение: не больше {maximum}",
  "too_big.string": "не длиннее {maximum} символов",
  "too_big.array": "не больше {maximum} элементов",
  too_small: "слишком маленькое значение: не меньше {minimum}",
  "too_small.string": "не короче {minimum} символов",
  "too_small.array": "не меньше {minimum} элементов",
  invalid_format: "неверный формат",
  "invalid_format.url": "это не адрес URL",
  "invalid_format.email": "это не адрес электронной почты",
  "invalid_format.uuid": "это не UUID",
  "invalid_format.datetime": "нужны дата и время в формате ISO 8601",
  not_multiple_of: "должно делиться на {divisor}",
  unrecognized_keys: "неизвестные поля: {keys}",
  invalid_union: "неверное значение",
  invalid_key: "неверный ключ",
  invalid_element: "неверный элемент",
  invalid_value: "допустимые значения: {values}",
  custom: "неверное значение",
};

const enIssues: IssueTexts = {
  invalid_type: "wrong type of value",
  too_big: "too large: at most {maximum}",
  "too_big.string": "at most {maximum} characters",
  "too_big.array": "at most {maximum} items",
  too_small: "too small: at least {minimum}",
  "too_small.string": "at least {minimum} characters",
  "too_small.array": "at least {minimum} items",
  invalid_format: "wrong format",
  "invalid_format.url": "not a URL",
  "invalid_format.email": "not an email address",
  "invalid_format.uuid": "not a UUID",
  "invalid_format.datetime": "an ISO 8601 date and time is needed",
  not_multiple_of: "must be a multiple of {divisor}",
  unrecognized_keys: "unknown fields: {keys}",
  invalid_union: "invalid value",
  invalid_key: "invalid key",
  invalid_element: "invalid item",
  invalid_value: "allowed values: {values}",
  custom: "invalid value",
};

const ruRules: Record<IssueRule, string> = {
  LONE_SURROGATE: "текст содержит одиночный суррогат UTF-16",
  NUL_CHARACTER: "текст содержит нулевой символ U+0000",
  PROTO_KEY: "ключ __proto__ недопустим",
  UNSAFE_INTEGER: "целое число больше 2^53 − 1 по модулю: передайте его строкой",
  METADATA_TOO_LARGE: "не больше {maxBytes} байт в JSON",
  RETURN_URL: "нужна ссылка https://, t.me/… или tg://… без пробелов и управляющих символов",
  WEBHOOK_URL_HTTPS: "нужен адрес https://",
  WEBHOOK_URL_HTTP_OR_HTTPS: "нужен адрес https:// или http://",
  WEBHOOK_URL_CREDENTIALS: "адрес не должен содержать логин и пароль",
  WEBHOOK_URL_PRIVATE: "адрес должен быть публичным, не из внутренней сети",
  UNKNOWN_STATUS: "неизвестный статус {values}; допустимые: {allowed}",
  FROM_AFTER_TO: "начало периода позже его конца",
  EMAIL: "укажите адрес электронной почты",
  PASSWORD_LENGTH: "пароль — от {min} до {max} символов",
  RECEIPT_REQUIRED: "магазин выдаёт чек по каждому платежу: нужен чек",
  RECEIPT_TAXATION_REQUIRED: "укажите систему налогообложения: у магазина нет её по умолчанию",
  RECEIPT_VAT_REQUIRED: "укажите ставку НДС: у магазина нет её по умолчанию",
  RECEIPT_ITEMS_SUM: "сумма позиций (цена × количество, каждая с округлением до копейки) должна точно равняться сумме платежа",
  RECEIPT_CONTACT: "нужен email или телефон покупателя",
  QUANTITY_DECIMALS: "не больше трёх знаков после запятой",
  ITEM_AMOUNT: "должно быть цена × количество с округлением до копейки",
  TOTAL_SUM: "должно быть суммой позиций ({totalKopecks} коп.)",
  WITH_PAYMENT_METHOD_ID: "не указывается вместе с paymentMethodId: его задаёт сохранённый способ",
  FAILURE_CODE_WITHOUT_FAILED: "указывается только с исходом FAILED",
};

const enRules: Record<IssueRule, string> = {
  LONE_SURROGATE: "the text contains a lone UTF-16 surrogate",
  NUL_CHARACTER: "the text contains the character U+0000",
  PROTO_KEY: "the key __proto__ is not allowed",
  UNSAFE_INTEGER: "an integer beyond 2^53 − 1 in magnitude: send it as a string",
  METADATA_TOO_LARGE: "at most {maxBytes} bytes as JSON",
  RETURN_URL: "a link https://, t.me/… or tg://… without spaces or control characters is needed",
  WEBHOOK_URL_HTTPS: "an https:// address is needed",
  WEBHOOK_URL_HTTP_OR_HTTPS: "an https:// or http:// address is needed",
  WEBHOOK_URL_CREDENTIALS: "the address must not contain a user name and password",
  WEBHOOK_URL_PRIVATE: "the address must be public, not in a private network",
  UNKNOWN_STATUS: "unknown status {values}; allowed: {allowed}",
  FROM_AFTER_TO: "the period starts after it ends",
  EMAIL: "enter an email address",
  PASSWORD_LENGTH: "the password is {min} to {max} characters",
  RECEIPT_REQUIRED: "the shop issues a receipt for every payment: a receipt is required",
  RECEIPT_TAXATION_REQUIRED: "state the taxation system: the shop has no default",
  RECEIPT_VAT_REQUIRED: "state the VAT rate: the shop has no default",
  RECEIPT_ITEMS_SUM: "the items (price × quantity, each rounded to a kopeck) must add up to the payment's amount exactly",
  RECEIPT_CONTACT: "the buyer's email or phone is required",
  QUANTITY_DECIMALS: "at most 3 decimals",
  ITEM_AMOUNT: "must be price × quantity rounded to a kopeck",
  TOTAL_SUM: "must be the sum of the items ({totalKopecks} kopecks)",
  WITH_PAYMENT_METHOD_ID: "must not be sent with paymentMethodId: the saved method decides it",
  FAILURE_CODE_WITHOUT_FAILED: "only with outcome FAILED",
};

type Names = {
  statuses: Record<(typeof PAYMENT_STATUSES)[number], string>;
  methods: Record<(typeof PAYMENT_METHODS)[number], string>;
  services: Record<(typeof SERVICE_NAMES)[number], string>;
  someService: string;
  /** The socket and TLS error codes a receiver or a register most often causes, in words. */
  systemErrors: Partial<Record<string, string>>;
  fields: Partial<Record<string, string>>;
};

const ruNames: Names = {
  statuses: { CREATED: "Создан", PENDING: "Оплачивается", AUTHORIZED: "Ждёт списания", SUCCESS: "Оплачен", FAILED: "Отклонён", EXPIRED: "Истёк", REFUNDED: "Возвращён", CANCELED: "Отменён" },
  methods: { SBP: "СБП", CARD: "Карта" },
  services: {
    payments: "Сервис платежей",
    balance: "Сервис баланса",
    webhooks: "Сервис вебхуков",
    directory: "Справочник магазинов",
    dashboard: "Кабинет",
    receipts: "Сервис чеков",
    idempotency: "Хранилище ключей идемпотентности",
  },
  someService: "Один из сервисов",
  systemErrors: {
    ENOTFOUND: "такого имени нет в DNS",
    EAI_AGAIN: "DNS не ответил",
    ECONNREFUSED: "сервер отказал в соединении",
    ECONNRESET: "сервер оборвал соединение",
    ETIMEDOUT: "сервер не ответил на соединение",
    EHOSTUNREACH: "сервер недоступен по сети",
    ENETUNREACH: "сеть сервера недоступна",
    EPROTO: "ошибка протокола TLS (например, https на порту без TLS)",
    CERT_HAS_EXPIRED: "срок сертификата сервера истёк",
    DEPTH_ZERO_SELF_SIGNED_CERT: "сертификат сервера самоподписанный",
    SELF_SIGNED_CERT_IN_CHAIN: "в цепочке сертификата самоподписанный",
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: "сертификат сервера не удалось проверить",
    UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "сертификат сервера не удалось проверить",
    ERR_TLS_CERT_ALTNAME_INVALID: "сертификат выписан на другое имя",
  },
  fields: {
    name: "Название",
    webhookUrl: "URL вебхука",
    successUrl: "Ссылка после успешной оплаты",
    failUrl: "Ссылка после неудачной оплаты",
    email: "Email",
    password: "Пароль",
    amountKopecks: "Сумма",
    orderId: "Номер заказа",
    description: "Описание",
    metadata: "Метаданные",
    from: "С",
    to: "По",
    status: "Статус",
  },
};

const enNames: Names = {
  statuses: { CREATED: "Created", PENDING: "Being paid", AUTHORIZED: "Held", SUCCESS: "Paid", FAILED: "Declined", EXPIRED: "Expired", REFUNDED: "Refunded", CANCELED: "Canceled" },
  methods: { SBP: "SBP", CARD: "Card" },
  services: {
    payments: "The payments service",
    balance: "The balance service",
    webhooks: "The webhook service",
    directory: "The shop directory",
    dashboard: "The dashboard",
    receipts: "The receipts service",
    idempotency: "The idempotency key store",
  },
  someService: "One of the services",
  systemErrors: {
    ENOTFOUND: "no such name in DNS",
    EAI_AGAIN: "DNS did not answer",
    ECONNREFUSED: "the server refused the connection",
    ECONNRESET: "the server dropped the connection",
    ETIMEDOUT: "the server did not answer the connection",
    EHOSTUNREACH: "the server cannot be reached",
    ENETUNREACH: "the server's network cannot be reached",
    EPROTO: "TLS protocol error (https to a port without TLS, say)",
    CERT_HAS_EXPIRED: "the server's certificate has expired",
    DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
    SELF_SIGNED_CERT_IN_CHAIN: "a self-signed certificate in the chain",
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate could not be verified",
    UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate could not be verified",
    ERR_TLS_CERT_ALTNAME_INVALID: "the certificate is for another name",
  },
  fields: {
    name: "Name",
    webhookUrl: "Webhook URL",
    successUrl: "Link after a successful payment",
    failUrl: "Link after a failed payment",
    email: "Email",
    password: "Password",
    amountKopecks: "Amount",
    orderId: "Order number",
    description: "Description",
    metadata: "Metadata",
    from: "From",
    to: "To",
    status: "Status",
  },
};

export const REASON_TEXTS: Record<Lang, { reasons: ReasonTexts; issues: IssueTexts; rules: Record<IssueRule, string>; names: Names }> = {
  ru: { reasons: ru, issues: ruIssues, rules: ruRules, names: ruNames },
  en: { reasons: en, issues: enIssues, rules: enRules, names: enNames },
};

/** One parameter as a person reads it in the language. */
function formatParam(lang: Lang, kind: ParamKind | undefined, value: unknown): string {
  const { names } = REASON_TEXTS[lang];
  if (kind === "kopecks" && typeof value === "number") return formatRubles(value, lang);
  if (kind === "status") return names.statuses[value as keyof Names["statuses"]] ?? String(value);
  if (kind === "method") return names.methods[value as keyof Names["methods"]] ?? String(value);
  if (kind === "service") return names.services[value as keyof Names["services"]] ?? names.someService;
  // The code stays after the words: it is what the merchant's hosting support will ask for.
  if (kind === "systemError") return Object.hasOwn(names.systemErrors, String(value)) ? `${names.systemErrors[String(value)]} (${String(value)})` : String(value);
  return String(value);
}

/** A validation issue in the language: "Field: what is wrong". */
export function describeIssue(lang: Lang, issue: ValidationIssue): string {
  const { issues, rules, names } = REASON_TEXTS[lang];
  const rule = issue.params.rule as IssueRule | undefined;
  const precise = issue.params.origin ?? issue.params.format;
  const template =
    (issue.issue === "custom" && rule && rules[rule]) ||
    (precise !== undefined && issues[`${issue.issue}.${precise}`]) ||
    issues[issue.issue as keyof IssueTexts] ||
    issues.custom;
  const text = fillTemplate(template, Object.fromEntries(Object.entries(issue.params).map(([k, v]) => [k, String(v)])));
  if (!issue.path) return text;
  const top = issue.path.split(".")[0]!;
  return `${names.fields[issue.path] ?? names.fields[top] ?? issue.path}: ${text}`;
}

/**
 * The words for a refusal in the page's language: one line, or one per problem of a
 * VALIDATION_FAILED.
 */
export function describeReason(lang: Lang, reason: Reason, params: Record<string, unknown>): string[] {
  // A reason this build does not know (stored or sent by a newer one) still gets words.
  if (!Object.hasOwn(REASONS, reason)) return [REASON_TEXTS[lang].reasons.INTERNAL];
  if (reason === "VALIDATION_FAILED") return ((params.issues ?? []) as ValidationIssue[]).map((i) => describeIssue(lang, i));
  const kinds = REASONS[reason].params as Record<string, ParamKind>;
  const values = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, formatParam(lang, kinds[k], v)]));
  return [fillTemplate(REASON_TEXTS[lang].reasons[reason], values)];
}

/** The service a SERVICE_UNAVAILABLE names, by name in the language. */
export const serviceName = (lang: Lang, service: unknown) => formatParam(lang, "service", service);
