/**
 * Remembers which (id, status) pairs were already handed to the application (spec §6 receiver
 * requirement 5). claim() is true the first time a key is seen; release() forgets a key whose
 * handling failed, so a later resend is handled again. Back it with your database (a UNIQUE key)
 * when more than one process receives webhooks.
 */
export interface DedupeStore {
  claim(key: string): boolean | Promise<boolean>;
  release(key: string): void | Promise<void>;
}

/** The default: the most recent `capacity` keys of this process, least recently seen forgotten first. */
export class MemoryDedupeStore implements DedupeStore {
  private readonly keys = new Map<string, true>();

  constructor(private readonly capacity = 10_000) {}

  claim(key: string): boolean {
    if (this.keys.has(key)) {
      this.keys.delete(key);
      this.keys.set(key, true);
      return false;
    }
    this.keys.set(key, true);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.keys().next().value!);
    return true;
  }

  release(key: string): void {
    this.keys.delete(key);
  }
}
