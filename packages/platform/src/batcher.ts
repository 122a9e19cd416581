/**
 * Work handed over during one turn of the event loop, done together: `add(item)` resolves with
 * the item's result once the batch holding it is done. One batch runs at a time, in the order the
 * items were added, so what a consumer applies still follows the stream; items added while a
 * batch runs form the next one (up to `max`), which is how the batches grow under load and the
 * cost of a commit is shared by more items.
 *
 * `run(items)` must be all or nothing (one transaction) and safe to repeat (idempotent keys):
 * when a batch of several fails, each of its items is run again alone, so an item that cannot be
 * done fails only itself and the others are kept. A store that is down rather than refusing one
 * item would fail every one of them in turn, each after its statement timeout (a hung server:
 * 256 × 5 s), so after FAILURES_IN_A_ROW alone the rest of the batch fails with the same error,
 * unrun: its items are redelivered, and a single bad item still fails alone.
 */
const FAILURES_IN_A_ROW = 3;

export class Batcher<I, O> {
  private waiting: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private running = false;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly max: number,
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.scheduled && !this.running) {
        this.scheduled = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.max);
        await this.settle(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async settle(batch: Batcher<I, O>["waiting"]): Promise<void> {
    try {
      const outputs = await this.run(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(outputs[i]!));
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
      let inARow = 0;
      for (const [i, w] of batch.entries()) {
        const failure = await this.runAlone(w);
        inARow = failure === undefined ? 0 : inARow + 1;
        if (inARow < FAILURES_IN_A_ROW) continue;
        for (const rest of batch.slice(i + 1)) rest.reject(failure);
        return;
      }
    }
  }

  /** Runs one item by itself; its error, if it failed. */
  private async runAlone(w: Batcher<I, O>["waiting"][number]): Promise<unknown> {
    try {
      w.resolve((await this.run([w.item]))[0]!);
      return undefined;
    } catch (e) {
      w.reject(e);
      return e ?? new Error("failed");
    }
  }
}
