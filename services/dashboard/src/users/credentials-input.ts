import { z } from "zod";

/** Trimmed and lower-cased: one address is one user however it is typed. */
export const Email = z.string().trim().toLowerCase().pipe(z.email().max(254));

/**
 * Long enough that guessing within the sign-in throttle is hopeless; bounded so that hashing a
 * huge body cannot tie up the CPU.
 */
export const PASSWORD_LENGTH = { min: 10, max: 128 } as const;

export function passwordProblem(password: string): "short" | "long" | undefined {
  if (password.length < PASSWORD_LENGTH.min) return "short";
  if (password.length > PASSWORD_LENGTH.max) return "long";
  return undefined;
}
