import { expect, test } from "bun:test";
import { MIN_PASSWORD_MEMORY_KIB, Passwords } from "./passwords.ts";

test("a hash is argon2id at the configured cost; hashes made at another cost still verify", async () => {
  const floor = new Passwords({ memoryKib: MIN_PASSWORD_MEMORY_KIB, passes: 3 });
  const hash = await floor.hash("a long password");
  expect(hash).toStartWith(`$argon2id$v=19$m=${MIN_PASSWORD_MEMORY_KIB},t=3,`);
  const bunDefault = await Bun.password.hash("an older password", { algorithm: "argon2id" });
  expect(await floor.verify("an older password", bunDefault)).toBe(true);
  expect(await floor.verify("a long password", hash)).toBe(true);
  expect(await floor.verify("a wrong password", hash)).toBe(false);
  // No such user: the decoy is checked, and the answer is no even for the decoy's own password.
  expect(await floor.verify("a long password", undefined)).toBe(false);
});
