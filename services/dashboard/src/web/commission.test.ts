import { expect, test } from "bun:test";
import { commissionState } from "./commission.ts";

test("the commission is said as it stands: not charged unless paid, none in the sandbox, returned with refunds", () => {
  const live = { isTest: false, refundedKopecks: 0 };
  expect(commissionState({ ...live, status: "FAILED" })).toBe("notCharged");
  expect(commissionState({ ...live, status: "EXPIRED" })).toBe("notCharged");
  expect(commissionState({ ...live, status: "CANCELED" })).toBe("notCharged");
  expect(commissionState({ ...live, status: "CREATED" })).toBe("ifPaid");
  expect(commissionState({ ...live, status: "PENDING" })).toBe("ifPaid");
  expect(commissionState({ ...live, status: "SUCCESS" })).toBe("charged");
  expect(commissionState({ ...live, status: "SUCCESS", refundedKopecks: 50_000 })).toBe("partlyReturned");
  expect(commissionState({ ...live, status: "REFUNDED", refundedKopecks: 70_000 })).toBe("returned");
  expect(commissionState({ isTest: true, refundedKopecks: 0, status: "SUCCESS" })).toBe("sandbox");
  expect(commissionState({ isTest: true, refundedKopecks: 0, status: "FAILED" })).toBe("notCharged");
});
