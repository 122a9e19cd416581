import { describe, expect, test } from "bun:test";
import { ISSUE_RULE_PARAMS, ISSUE_RULES, placeholdersOf, REASON_CODES, REASONS, ZOD_ISSUE_CODES, type ParamKind, type ValidationIssue } from "@payaccept/contracts";
import { LANGS } from "./lang.ts";
import { formatRubles } from "./money.ts";
import { describeIssue, describeReason, REASON_TEXTS } from "./reason-text.ts";

/** A value of each kind, chosen so that a page that shows it raw would be caught. */
const SAMPLE: Record<ParamKind, unknown> = {
  kopecks: 243_799,
  int: 42,
  text: "sample-text",
  status: "REFUNDED",
  method: "CARD",
  service: "balance",
  systemError: "ECONNREFUSED",
  statementProblem: "NO_FILE_END",
  issues: [{ path: "amountKopecks", issue: "too_small", params: { origin: "number", minimum: 100 }, message: "Too small: expected number to be >=100" }],
};
const sampleParams = (kinds: Record<string, ParamKind>) => Object.fromEntries(Object.entries(kinds).map(([k, kind]) => [k, SAMPLE[kind]]));
const leftover = /\{\w+\}/;

describe.each(LANGS)("every reason in %s", (lang) => {
  test.each(REASON_CODES)("%s has words using each of its parameters, rendered without a placeholder left", (reason) => {
    const template = REASON_TEXTS[lang].reasons[reason];
    const kinds = REASONS[reason].params as Record<string, ParamKind>;
    expect(template).toBeString();
    expect(placeholdersOf(template).sort()).toEqual(Object.keys(kinds).sort());
    const lines = describeReason(lang, reason, sampleParams(kinds));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(leftover);
    const text = lines.join(" ");
    if (Object.values(kinds).includes("kopecks")) expect(text).toContain(formatRubles(243_799, lang));
    if (Object.values(kinds).includes("status")) expect(text).toContain(REASON_TEXTS[lang].names.statuses.REFUNDED);
    if (Object.values(kinds).includes("service")) expect(text).toContain(REASON_TEXTS[lang].names.services.balance);
    if (Object.values(kinds).includes("statementProblem")) expect(text).toContain(REASON_TEXTS[lang].names.statementProblems.NO_FILE_END);
    if (Object.values(kinds).includes("systemError")) expect(text).toContain(`${REASON_TEXTS[lang].names.systemErrors.ECONNREFUSED} (ECONNREFUSED)`);
    // Said in Russian, not the API's English shown inside a Russian page.
    if (lang === "ru") expect(text).toMatch(/[а-яё]{3}/i);
  });

  test.each(ZOD_ISSUE_CODES)("zod's issue %s has words", (code) => {
    expect(REASON_TEXTS[lang].issues[code]).toBeString();
  });

  test.each(ISSUE_RULES)("our rule %s has words using each of its parameters", (rule) => {
    const template = REASON_TEXTS[lang].rules[rule];
    expect(placeholdersOf(template).sort()).toEqual([...ISSUE_RULE_PARAMS[rule]].sort());
    const params = Object.fromEntries([["rule", rule], ...ISSUE_RULE_PARAMS[rule].map((p) => [p, 7])]);
    expect(describeIssue(lang, { path: "webhookUrl", issue: "custom", params, message: "x" })).not.toMatch(leftover);
  });

  test("every issue template's placeholders are figures zod gives that issue", () => {
    const figures = new Set(["minimum", "maximum", "expected", "format", "origin", "divisor", "keys", "values"]);
    for (const template of Object.values(REASON_TEXTS[lang].issues)) for (const p of placeholdersOf(template!)) expect(figures).toContain(p);
  });
});

test("a refused refund reads in Russian with the money the Russian way", () => {
  const [line] = describeReason("ru", "REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 243_799, availableKopecks: 0, frozenKopecks: 0 });
  expect(line).toBe(
    "Для возврата не хватает баланса: с баланса нужно списать 2\u202F437,99\u00A0₽, а доступно 0,00\u00A0₽ (и 0,00\u00A0₽ из замороженных поступлений этого платежа).",
  );
});

test("a validation failure is one line per problem, the field by its name", () => {
  const issues: ValidationIssue[] = [
    { path: "webhookUrl", issue: "custom", params: { rule: "WEBHOOK_URL_PRIVATE" }, message: "must point to a public address, not a private network" },
    { path: "name", issue: "too_big", params: { origin: "string", maximum: 100, inclusive: true }, message: "Too big" },
    { path: "somethingNew", issue: "a_future_zod_code", params: {}, message: "?" },
  ];
  expect(describeReason("ru", "VALIDATION_FAILED", { issues })).toEqual([
    "URL вебхука: адрес должен быть публичным, не из внутренней сети",
    "Название: не длиннее 100 символов",
    "somethingNew: неверное значение",
  ]);
});

test("a statement that is not one, or does not add up, reads in Russian with its line and figures", () => {
  expect(describeReason("ru", "STATEMENT_LINE_MALFORMED", { line: 7, problem: "NOT_KEY_VALUE" })).toEqual(["Это не выписка в формате 1CClientBankExchange: строка 7: строка не вида Ключ=Значение."]);
  expect(describeReason("ru", "STATEMENT_DOCUMENTS_MISMATCH", { total: "ВсегоСписано", documentsKopecks: 100, totalKopecks: 250 })).toEqual([
    "Документы выписки дают в сумме 1,00\u00A0₽, а её ВсегоСписано — 2,50\u00A0₽: файл изменён или неполный. Ничего не загружено.",
  ]);
});
