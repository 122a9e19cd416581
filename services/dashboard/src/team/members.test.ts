import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import type { AccountRole } from "../store/schema.ts";
import type { Member } from "../store/user-store.ts";
import { checkMemberChange, type Actor } from "./members.ts";

const member = (id: string, role: AccountRole): Member => ({ id, accountId: "acc", email: `${id}@example.com`, passwordHash: "x", role, createdAt: 1, twoFactor: false });
const actor = (m: Member): Actor => ({ ...m, accountId: "acc", from: { ip: "203.0.113.7" } });
const reason = (fn: () => unknown) => {
  try {
    fn();
    return "allowed";
  } catch (e) {
    return (e as DomainError).reason;
  }
};

describe("who may touch whom", () => {
  const owner = member("owner", "owner");
  const admin = member("admin", "admin");
  const dev = member("dev", "developer");
  const team = [owner, admin, dev];

  test("the last owner can neither leave, be removed nor be demoted; with a second owner, either can go", () => {
    expect(reason(() => checkMemberChange(actor(owner), team, owner.id, "gone"))).toBe("LAST_OWNER");
    expect(reason(() => checkMemberChange(actor(owner), team, owner.id, "admin"))).toBe("LAST_OWNER");
    const second = member("second", "owner");
    expect(reason(() => checkMemberChange(actor(second), [...team, second], owner.id, "viewer"))).toBe("allowed");
    expect(reason(() => checkMemberChange(actor(owner), [...team, second], owner.id, "gone"))).toBe("allowed");
  });

  test("only an owner grants, changes or removes the owner role; an admin runs the rest of the team", () => {
    expect(reason(() => checkMemberChange(actor(admin), team, owner.id, "viewer"))).toBe("OWNER_ONLY");
    expect(reason(() => checkMemberChange(actor(admin), team, owner.id, "gone"))).toBe("OWNER_ONLY");
    expect(reason(() => checkMemberChange(actor(admin), team, dev.id, "owner"))).toBe("OWNER_ONLY");
    expect(reason(() => checkMemberChange(actor(admin), team, dev.id, "support"))).toBe("allowed");
    expect(reason(() => checkMemberChange(actor(admin), team, dev.id, "gone"))).toBe("allowed");
    expect(reason(() => checkMemberChange(actor(owner), team, dev.id, "owner"))).toBe("allowed");
    // Leaving is one's own: a developer may (the route allows every member to leave).
    expect(reason(() => checkMemberChange(actor(dev), team, dev.id, "gone"))).toBe("allowed");
  });

  test("a member of another team, or gone meanwhile, is not found", () => {
    expect(reason(() => checkMemberChange(actor(owner), team, "someone-else", "viewer"))).toBe("MEMBER_NOT_FOUND");
  });
});
