/**
 * Runs tasks one at a time per key. Sign-in attempts for one email or one address go through it,
 * so parallel guesses cannot all pass the throttle check before any failure is counted.
 * Keys are always taken in the order given; callers pass them in one fixed order (email, then
 * address), so two tasks can never wait for each other.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(keys: string[], task: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const key of keys) releases.push(await this.acquire(key));
      return await task();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
