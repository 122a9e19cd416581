import { Ticker } from "@payaccept/platform";
import { driveRefund } from "../app/refund.ts";
import type { PaymentsDeps } from "../app/deps.ts";
import { refundHasEnded } from "../domain/state-machine.ts";

/**
 * Drives PENDING refunds whose lease has run out (their request timed out, or the process driving
 * them died) until they end, so an interrupted refund ends refunded or not refunded with no
 * operator. Each refund is claimed for refundLeaseMs first, so replicas and the sweeper's own
 * ticks do not drive the same one at once (and if they did, every step is idempotent).
 */
export class RefundSweeper {
  private readonly ticker: Ticker;

  constructor(
    private readonly d: PaymentsDeps,
    private readonly opts: { everyMs: number; batchSize?: number },
    private readonly log: PaymentsDeps["log"] = d.log,
  ) {
    this.ticker = new Ticker(() => this.sweep(d.now()), opts.everyMs, (err) => log.error({ err }, "refund sweep failed"));
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** Drives up to batchSize due refunds at once; returns how many of them ended. */
  async sweep(now: number): Promise<number> {
    const due = await this.d.refunds.due(now, this.opts.batchSize ?? 20);
    const claimed = (await Promise.all(due.map((id) => this.d.refunds.claim(id, now, this.d.refundLeaseMs)))).filter((r) => r !== undefined);
    const ended = await Promise.all(
      claimed.map((r) =>
        driveRefund(this.d, r).catch((err) => {
          this.log.error({ err, refundId: r.id }, "refund retry failed");
          return r;
        }),
      ),
    );
    return ended.filter((r) => refundHasEnded(r.status)).length;
  }
}
