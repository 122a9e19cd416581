import type { NatsConnection } from "@payaccept/platform";

/** True while the connection is up; follows disconnects and reconnects for readiness. */
export function connectionUp(nc: NatsConnection): () => boolean {
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") up = false;
      else if (s.type === "reconnect") up = true;
    }
  })().catch(() => {});
  return () => up && !nc.isClosed();
}
