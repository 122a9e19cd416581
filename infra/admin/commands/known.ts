import { DomainError, rpcs, shopKvKey } from "@payaccept/contracts";
import { call, openDirectoryBucket, type NatsConnection } from "@payaccept/platform";
import { requireFlag, type Flags } from "../cli.ts";

/**
 * --account or --shop, checked with the directory before the service that keeps the data: the
 * ledger and the dispatcher answer zeros and empty lists for an id they never saw, so a mistyped
 * one would read as an empty balance, an empty log or "0 requeued"; NOT_FOUND says what is wrong.
 */
export async function knownAccount(nc: NatsConnection, flags: Flags, timeoutMs: number): Promise<string> {
  const accountId = requireFlag(flags, "account");
  await call(nc, rpcs.directory.getAccount, { accountId }, timeoutMs);
  return accountId;
}

/**
 * The shop as the directory published it to its bucket: what the dispatcher itself goes by, so
 * the check holds wherever the dispatcher runs, with or without the directory service beside it.
 */
export async function knownShop(nc: NatsConnection, flags: Flags, timeoutMs: number): Promise<string> {
  const shopId = requireFlag(flags, "shop");
  const entry = await (await openDirectoryBucket(nc, { timeoutMs })).get(shopKvKey(shopId));
  if (entry?.operation !== "PUT") throw new DomainError("SHOP_NOT_FOUND");
  return shopId;
}
