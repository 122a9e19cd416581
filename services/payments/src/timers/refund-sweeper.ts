import { driveRefund } from "../app/refund.ts";
import type { PaymentsDeps } from "../app/deps.ts";

/**
 * Drives PENDING refunds whose lease has run out (their request timed out, or the process driving
 * them died) until they end, so an interrupted refund ends refunded or not refunded with no
 * operator. Each refund is claimed for refundLeaseMs first, so replicas and the sweeper's own
 * ticks do not drive the same one at once (and if they did, every step is idempotent).
 */
export class RefundSweeper {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly d: PaymentsDeps,
    private readonly opts: { everyMs: number; batchSize?: number },
    private readonly log: PaymentsDeps["log"] = d.log,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.opts.everyMs);
    this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.sweep(this.d.now())
      .then(() => undefined, (err) => this.log.error({ err }, "refund sweep failed"))
      .finally(() => (this.running = undefined));
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
    return ended.filter((r) => r.status !== "PENDING").length;
  }
}
