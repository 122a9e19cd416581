import { describe, expect, test } from "bun:test";
import { CreatePaymentRequest, ListPaymentsQuery } from "./api.ts";
import { DomainError, issuesOf } from "./errors.ts";
import { englishMessage, ERROR_HTTP_STATUS, placeholdersOf, REASON_CODES, REASONS, SERVICE_NAMES, type Reason } from "./reasons.ts";
import { rpcs } from "./rpc.ts";

describe("the catalogue", () => {
  test.each(REASON_CODES)("%s: its English template names exactly its parameters, and its transport code has a status", (reason) => {
    const def = REASONS[reason];
    expect(placeholdersOf(def.en).sort()).toEqual(Object.keys(def.params).sort());
    expect(ERROR_HTTP_STATUS[def.transport]).toBeGreaterThanOrEqual(400);
  });

  test("an error's transport code comes from its reason; its English is the template filled, amounts in rubles and kopecks", () => {
    const e = new DomainError("REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 243_799, availableKopecks: 0, frozenKopecks: 0 });
    expect(e).toMatchObject({ code: "CONFLICT", reason: "REFUND_EXCEEDS_AVAILABLE", params: { neededKopecks: 243_799, availableKopecks: 0, frozenKopecks: 0 } });
    expect(e.message).toBe(
      "the balance cannot cover the refund: it takes 2437.99 RUB (243799 kopecks) from the balance, which has 0.00 RUB (0 kopecks) available (after 0.00 RUB (0 kopecks) from the payment's own frozen receipt)",
    );
  });

  test("an RPC envelope rebuilds the same error", () => {
    const e = new DomainError("SERVICE_UNAVAILABLE", { service: "balance" });
    const rpc = JSON.parse(JSON.stringify(e.toRpc())) as ReturnType<DomainError["toRpc"]>;
    expect(DomainError.of(rpc.reason as Reason, rpc.params)).toEqual(e);
    expect(rpc).toEqual({ code: "UNAVAILABLE", reason: "SERVICE_UNAVAILABLE", params: { service: "balance" }, message: "balance service unavailable" });
  });
});

describe("validation issues", () => {
  test("each problem carries zod's issue code and its figures; English stays in message only", () => {
    const r = CreatePaymentRequest.safeParse({ orderId: "x".repeat(200), amountKopecks: 50, successUrl: "http://a.example" });
    const issues = issuesOf(r.error!);
    expect(issues).toContainEqual(expect.objectContaining({ path: "orderId", issue: "too_big", params: expect.objectContaining({ origin: "string", maximum: expect.any(Number) }) }));
    expect(issues).toContainEqual(expect.objectContaining({ path: "amountKopecks", issue: "too_small", params: expect.objectContaining({ minimum: 100 }) }));
    expect(issues).toContainEqual(expect.objectContaining({ path: "successUrl", issue: "custom", params: { rule: "RETURN_URL" } }));
    expect(englishMessage("VALIDATION_FAILED", { issues })).toEqual(issues.map((i) => `${i.path}: ${i.message}`));
  });

  test("our own rules name themselves: lone surrogates, __proto__, unknown statuses, a period backwards", () => {
    const bad = CreatePaymentRequest.safeParse({ orderId: "X-\ud800", amountKopecks: 100, metadata: JSON.parse('{"__proto__": 1}') });
    expect(issuesOf(bad.error!).map((i) => [i.path, i.params.rule])).toEqual([
      ["orderId", "LONE_SURROGATE"],
      ["metadata", "PROTO_KEY"],
    ]);
    const query = ListPaymentsQuery.safeParse({ status: "PAID", from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" });
    expect(issuesOf(query.error!).map((i) => i.params.rule)).toEqual(["UNKNOWN_STATUS", "FROM_AFTER_TO"]);
  });
});

test("a reason this build does not know (a newer peer's) is rebuilt as INTERNAL, not a crash", () => {
  expect(DomainError.of("SOMETHING_NEW" as Reason, {})).toMatchObject({ code: "INTERNAL", reason: "INTERNAL" });
});

test("every service an RPC subject names (SERVICE_UNAVAILABLE's parameter) is one the pages have a name for", () => {
  const subjects = Object.values(rpcs).flatMap((area) => Object.values(area).map((r) => (r as { subject: string }).subject));
  for (const subject of subjects) expect(SERVICE_NAMES as readonly string[]).toContain(subject.split(".")[0]!);
});
