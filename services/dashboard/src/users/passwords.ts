/** argon2id's cost: memory in KiB and passes. Bun's defaults are 64 MiB and 2 passes. */
export type PasswordCost = { memoryKib: number; passes: number };

/** OWASP's floor for argon2id (19 MiB, 2 passes): below it the dashboard refuses to start. */
export const MIN_PASSWORD_MEMORY_KIB = 19_456;

/**
 * Hashes passwords with argon2id at the configured cost, and verifies them (a hash carries its own
 * cost, so hashes made at another cost keep verifying). An unknown email is verified against a
 * throwaway hash, so that it takes as long as a wrong password and timing tells nothing.
 */
export class Passwords {
  private readonly decoy: Promise<string>;

  constructor(private readonly cost: PasswordCost) {
    this.decoy = this.hash(crypto.randomUUID());
  }

  hash(password: string): Promise<string> {
    return Bun.password.hash(password, { algorithm: "argon2id", memoryCost: this.cost.memoryKib, timeCost: this.cost.passes });
  }

  async verify(password: string, hash: string | undefined): Promise<boolean> {
    const ok = await Bun.password.verify(password, hash ?? (await this.decoy));
    return hash !== undefined && ok;
  }
}
