import { rpcs } from "@payaccept/contracts";
import { serve, type NatsConnection, type Subscription } from "@payaccept/platform";
import { detailsOfAccounts, getAccountDetails, setAccountDetails } from "./account-details.ts";
import { callerOf } from "./audit/entries.ts";
import { auditLog } from "./audit/log.ts";
import * as directory from "./directory.ts";
import type { DirectoryDeps } from "./directory.ts";

/**
 * Serves rpcs.directory.* over NATS with the queue group "directory": replicas share the requests.
 * Every change (and a secret's reveal) is recorded in the audit log for the caller's actor.
 */
export function serveDirectory(nc: NatsConnection, deps: DirectoryDeps): Subscription[] {
  const opts = { queue: "directory", log: deps.log };
  return [
    serve(nc, rpcs.directory.createShop, (req, msg) => directory.createShop(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.setActive, (req, msg) => directory.setActive(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.rotateKey, (req, msg) => directory.rotateKey(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.endKeyOverlap, (req, msg) => directory.endKeyOverlap(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.updateShop, (req, msg) => directory.updateShop(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.rotateSecret, (req, msg) => directory.rotateSecret(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.endSecretOverlap, (req, msg) => directory.endSecretOverlap(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.getShop, (req, msg) => directory.getShop(deps, req, callerOf(msg)), opts),
    serve(nc, rpcs.directory.listShops, (req) => directory.listShops(deps, req), opts),
    serve(nc, rpcs.directory.browseShops, (req) => directory.browseShops(deps, req), opts),
    serve(nc, rpcs.directory.createAccount, () => directory.createAccount(deps), opts),
    serve(nc, rpcs.directory.getAccount, (req) => directory.getAccount(deps, req), opts),
    serve(nc, rpcs.directory.getAccountDetails, (req) => getAccountDetails(deps, req.accountId), opts),
    serve(nc, rpcs.directory.detailsOfAccounts, async (req) => ({ items: await detailsOfAccounts(deps, req.accountIds) }), opts),
    serve(nc, rpcs.directory.setAccountDetails, (req, msg) => setAccountDetails(deps, req.accountId, req.details, callerOf(msg)), opts),
    serve(nc, rpcs.directory.auditLog, (req) => auditLog(deps.store, req), opts),
  ];
}
