import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { DomainError, rpcs } from "@payaccept/contracts";
import { DashboardClient } from "./dashboard-client.ts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(60_000);

let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "dashboard"] });
}, STACK_START_MS);
afterAll(() => stack.stop());

const createMerchant = (req: { email: string; password: string; accountId: string }) =>
  stack.call(rpcs.dashboard.createMerchant, req).catch((e: DomainError) => e);

test("a shop made over the bus gets a dashboard user for its account, once", async () => {
  const shop = await stack.createShop({ name: "Made by the CLI" });
  const user = await createMerchant({ email: "Owner@Example.com", password: "long enough password", accountId: shop.accountId });
  expect(user).toMatchObject({ email: "owner@example.com", accountId: shop.accountId });

  const client = DashboardClient.of(stack);
  const signedIn = await client.signIn("owner@example.com", "long enough password");
  expect(signedIn.status).toBe(303);
  expect((await client.follow(signedIn)).html).toContain("Made by the CLI");

  const again = await createMerchant({ email: "second@example.com", password: "long enough password", accountId: shop.accountId });
  expect(again).toBeInstanceOf(DomainError);
  expect((again as DomainError).code).toBe("CONFLICT");
});

test("an unknown account is NOT_FOUND and bad credentials list every problem", async () => {
  const unknown = await createMerchant({ email: "x@example.com", password: "long enough password", accountId: "nope" });
  expect((unknown as DomainError).code).toBe("NOT_FOUND");
  const bad = (await createMerchant({ email: "not-an-email", password: "short", accountId: "nope" })) as DomainError;
  expect(bad.code).toBe("BAD_REQUEST");
  expect(bad.messages).toHaveLength(2);
});
