import { CONNECTOR_IDS, type ConnectorHealth, type ConnectorId, type PaymentMethod, type ProviderSession, type ShopRecord } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import { notStarted, ProviderError, type ProviderPort } from "../provider/port.ts";
import type { Connector } from "./connector.ts";
import { ConnectorHealthMonitor, failovers, type CircuitOptions } from "./health.ts";
import { asDefinition, type ConnectorsConfig } from "./registry.ts";

/** Rows written before connectors existed were all the emulator's. */
export const LEGACY_CONNECTOR: ConnectorId = "emulator";

type Entry = { connector: Connector; monitor: ConnectorHealthMonitor };

/**
 * The connectors this deployment configured, each behind its health monitor (circuit breaker,
 * metrics), and the routing of a buyer's session over a shop's list with failover
 * (docs/connectors.md, "Routing and failover").
 */
export class Connectors {
  private readonly entries = new Map<ConnectorId, Entry>();

  constructor(
    made: Connector[],
    readonly defaultId: ConnectorId,
    circuit: CircuitOptions,
    private readonly log: Pick<Logger, "info" | "warn">,
  ) {
    for (const connector of made) {
      const monitor = new ConnectorHealthMonitor(connector.id, circuit);
      this.entries.set(connector.id, { connector: { ...connector, port: monitor.wrap(connector.port) }, monitor });
    }
  }

  /** The configured connectors of the registry (registry.ts), made from payments' configuration. */
  static fromConfig(cfg: ConnectorsConfig, defaultId: ConnectorId, circuit: CircuitOptions, log: Logger): Connectors {
    const made = CONNECTOR_IDS.filter((id) => asDefinition(id).configured(cfg)).map((id) => asDefinition(id).create(cfg, { log }));
    return new Connectors(made, defaultId, circuit, log);
  }

  list(): Connector[] {
    return [...this.entries.values()].map((e) => e.connector);
  }

  configured(id: ConnectorId): boolean {
    return this.entries.has(id);
  }

  /** A configured connector; one this deployment lacks is "unavailable, nothing began" (the next of a list may take over). */
  get(id: ConnectorId): Connector {
    const entry = this.entries.get(id);
    if (!entry) throw notStarted(`connector ${id} is not configured in this deployment`);
    return entry.connector;
  }

  /** The port of the connector a payment's (or a saved method's) session lives at. */
  portOf(id: ConnectorId | null): ProviderPort {
    return this.get(id ?? LEGACY_CONNECTOR).port;
  }

  /** The connectors a live shop's sessions of `method` are tried at, in order: its list, else the default. */
  candidates(shop: Pick<ShopRecord, "connectors">, method: PaymentMethod): ConnectorId[] {
    return shop.connectors?.[method] ?? [this.defaultId];
  }

  /**
   * A buyer's session at the first connector of the shop's list that takes it. The next one is
   * tried only when nothing began at this one (its connection refused, a 5xx, its circuit open,
   * or it is not configured here); a refusal, a timeout or a lost answer is the session's outcome,
   * never sent to a second acquirer while the first may be acting on it.
   */
  async openSession(candidates: ConnectorId[], req: Parameters<ProviderPort["createSession"]>[0]): Promise<{ connector: ConnectorId; session: ProviderSession }> {
    let last: ProviderError = notStarted("no connector for this method");
    for (const [i, id] of candidates.entries()) {
      try {
        return { connector: id, session: await this.get(id).port.createSession(req) };
      } catch (e) {
        if (!(e instanceof ProviderError) || e.started) throw e;
        last = e;
        const next = candidates[i + 1];
        if (next !== undefined) {
          failovers.inc({ from: id, to: next });
          this.log.warn(
            { paymentId: req.paymentId, method: req.method, from: id, to: next, err: e.message },
            "connector unavailable before anything began; the next one takes the session",
          );
        }
      }
    }
    throw last;
  }

  /** Every connector of the registry as this process sees it. */
  health(): ConnectorHealth[] {
    return CONNECTOR_IDS.map((id) => {
      const entry = this.entries.get(id);
      const isDefault = id === this.defaultId;
      if (entry) return entry.monitor.health(true, isDefault);
      return { id, configured: false, default: isDefault, circuit: "closed", calls: 0, successRatio: null, p95Ms: null, windowSeconds: 0 };
    });
  }
}
