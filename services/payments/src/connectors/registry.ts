import type { ConnectorId } from "@payaccept/contracts";
import type { ConfigOf, ConnectorDefinition, ConnectorEnv } from "./connector.ts";
import { emulator } from "./emulator/index.ts";
import { tbank } from "./tbank/index.ts";

/**
 * Every connector payments can reach, by its name in the contracts' CONNECTOR_IDS (a name
 * without its definition here is a compile error). A new connector: a folder with its
 * definition, one line here, its name in CONNECTOR_IDS (docs/connectors.md, "Adding a connector").
 */
export const CONNECTORS = {
  emulator,
  tbank,
} satisfies Record<ConnectorId, ConnectorDefinition<ConnectorEnv>>;

type Envs = { [K in ConnectorId]: (typeof CONNECTORS)[K]["env"] };
type Merge<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;

/** Every connector's variables, spread into payments' own (config.ts). */
export const connectorsEnv = Object.assign({}, ...Object.values(CONNECTORS).map((c) => c.env)) as Merge<Envs[ConnectorId]>;

export type ConnectorsConfig = ConfigOf<typeof connectorsEnv>;

/** Runs a definition's own method on the whole configuration (each reads its variables from it). */
export const asDefinition = (id: ConnectorId) => CONNECTORS[id] as unknown as ConnectorDefinition<ConnectorEnv>;
