/** argon2id with Bun's defaults (64 MiB, 2 passes): tens of milliseconds per hash here. */
export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

/**
 * Verifies a password against a user's hash, or against a throwaway hash when there is no such
 * user, so that an unknown email takes as long as a wrong password and timing tells nothing.
 */
export class PasswordVerifier {
  private readonly decoy = hashPassword(crypto.randomUUID());

  async verify(password: string, hash: string | undefined): Promise<boolean> {
    const ok = await Bun.password.verify(password, hash ?? (await this.decoy));
    return hash !== undefined && ok;
  }
}
