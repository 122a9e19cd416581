/**
 * One АТОЛ account's token (getToken: 24 hours of life). Renewed once it is `renewAfterMs` old, so
 * a call never goes out with a token about to expire; dropped when АТОЛ says it is missing or
 * expired anyway (codes 10, 11: a token from before a clock jump, or one АТОЛ revoked). Callers
 * asking at once share one getToken. The age is measured on this process's monotonic clock.
 */
export class AtolToken {
  private current: { token: string; obtainedAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly obtain: () => Promise<string>,
    private readonly renewAfterMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get(): Promise<string> {
    const c = this.current;
    if (c && this.clock() - c.obtainedAt < this.renewAfterMs) return Promise.resolve(c.token);
    this.pending ??= this.obtain()
      .then((token) => {
        this.current = { token, obtainedAt: this.clock() };
        return token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** АТОЛ refused `token`: the next get() obtains another (unless another caller already did). */
  drop(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }
}
