import { rpcs } from "@payaccept/contracts";
import { serve, type NatsConnection, type Subscription } from "@payaccept/platform";
import * as directory from "./directory.ts";
import type { DirectoryDeps } from "./directory.ts";

/** Serves rpcs.directory.* over NATS with the queue group "directory": replicas share the requests. */
export function serveDirectory(nc: NatsConnection, deps: DirectoryDeps): Subscription[] {
  const opts = { queue: "directory", log: deps.log };
  return [
    serve(nc, rpcs.directory.createShop, (req) => directory.createShop(deps, req), opts),
    serve(nc, rpcs.directory.setActive, (req) => directory.setActive(deps, req), opts),
    serve(nc, rpcs.directory.rotateKey, (req) => directory.rotateKey(deps, req), opts),
    serve(nc, rpcs.directory.updateShop, (req) => directory.updateShop(deps, req), opts),
    serve(nc, rpcs.directory.rotateSecret, (req) => directory.rotateSecret(deps, req), opts),
    serve(nc, rpcs.directory.getShop, (req) => directory.getShop(deps, req), opts),
    serve(nc, rpcs.directory.listShops, (req) => directory.listShops(deps, req), opts),
    serve(nc, rpcs.directory.browseShops, (req) => directory.browseShops(deps, req), opts),
    serve(nc, rpcs.directory.createAccount, () => directory.createAccount(deps), opts),
    serve(nc, rpcs.directory.getAccount, (req) => directory.getAccount(deps, req), opts),
  ];
}
