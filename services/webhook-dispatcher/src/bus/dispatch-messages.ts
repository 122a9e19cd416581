import type { JsMsg } from "@nats-io/jetstream";
import { decodeOrTerm, type Logger } from "@payaccept/platform";
import type { Disposition } from "../dispatch.ts";
import { DispatchCommand } from "./streams.ts";

/** Decodes a dispatch message, lets the dispatcher decide, and answers JetStream accordingly. */
export async function handleDispatchMessage(
  m: JsMsg,
  dispatch: (cmd: DispatchCommand) => Promise<Disposition>,
  log: Logger,
): Promise<void> {
  const cmd = decodeOrTerm(m, DispatchCommand, "dispatch message", log);
  if (!cmd) return;
  // Restart the ack wait: time spent in the pull buffer must not shorten the attempt's.
  m.working();
  const disposition = await dispatch(cmd);
  if (disposition.kind === "ack") m.ack();
  else if (disposition.kind === "nak") m.nak(disposition.delayMs);
}
