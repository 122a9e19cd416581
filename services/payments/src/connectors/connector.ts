import type { z } from "zod";
import type { ConnectorId, PaymentMethod } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import type { ReadCallback } from "../provider/callback.ts";
import type { ProviderPort } from "../provider/port.ts";

/**
 * One acquirer behind payments' provider port (docs/connectors.md): its port, how the buyer's card
 * page is shown, and how its notifications reach payments. A new connector is a folder with a
 * ConnectorDefinition and one line in registry.ts.
 */
export type Connector = {
  readonly id: ConnectorId;
  readonly port: ProviderPort;
  /**
   * `fields`: our payment page renders the card form, which posts straight to the session's
   * formAction; `hosted`: formAction is the acquirer's own payment page, where the buyer goes.
   */
  readonly cardPage: "fields" | "hosted";
  readonly notifications: NotificationChannel;
};

/** What payments knows of the payment a notification names (by the merchant's id of it): the session it keeps, and its method. */
export type StoredSession = { sessionId: string | null; method: PaymentMethod | null };

/** A connector's notifications: the route they come to, how they are verified and read, how they are answered. */
export type NotificationChannel = {
  /** The path on PAYMENTS_PORT the acquirer posts to. */
  readonly path: string;
  /**
   * Verifies and reads one notification into the provider protocol's results (none, one or
   * several); throws the DomainError to answer with (a signature that does not verify, a body
   * that does not read).
   */
  read(input: { headers: Headers; rawBody: string; nowMs: number; stored: (merchantPaymentId: string) => Promise<StoredSession> }): Promise<ReadCallback[]>;
  /** The HTTP answer once every result is committed (`retry`: one could not be, ask the acquirer to send it again). */
  answer(outcome: { retry: boolean; summary: unknown }): Response;
  /** The answer to a notification refused by `read`. */
  refusal(status: number, body: unknown): Response;
};

/** A connector's variables, validated at start with payments' own (config.ts). */
export type ConnectorEnv = Record<string, z.ZodType>;
export type ConfigOf<E extends ConnectorEnv> = z.output<z.ZodObject<E>>;

/**
 * A connector as registry.ts lists it: its variables, whether this deployment configured it (its
 * credentials are there), and how it is made. Only configured connectors can be chosen by a shop.
 */
export type ConnectorDefinition<E extends ConnectorEnv = ConnectorEnv> = {
  env: E;
  configured(cfg: ConfigOf<E>): boolean;
  /** Problems of its configuration, each naming its variable (checked at start). */
  check?(cfg: ConfigOf<E>): string[];
  create(cfg: ConfigOf<E>, ctx: { log: Logger }): Connector;
};

export const defineConnector = <E extends ConnectorEnv>(d: ConnectorDefinition<E>) => d;
