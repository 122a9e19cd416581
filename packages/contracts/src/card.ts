import { z } from "zod";
import { isCardExpired, isValidCardNumber, normalizeCardNumber, parseCardExpiry } from "./luhn.ts";

/**
 * The card form the payment page renders and the acquirer receives (POST {formAction}): the field
 * names are the contract between the two. Card data goes from the buyer's browser straight to the
 * acquirer and never through our servers.
 */
export const CARD_FORM_FIELDS = { pan: "pan", exp: "exp", cvc: "cvc", holder: "holder" } as const;

export const CardForm = z.object({
  pan: z
    .string()
    .max(32, { message: "card number is too long" })
    .refine(isValidCardNumber, { message: "card number is not valid" })
    .transform(normalizeCardNumber),
  exp: z
    .string()
    .max(16, { message: "expiry must be MM/YY" })
    .transform((v, ctx) => {
      const expiry = parseCardExpiry(v);
      if (!expiry) {
        ctx.addIssue({ code: "custom", message: "expiry must be MM/YY" });
        return z.NEVER;
      }
      if (isCardExpired(expiry, new Date())) {
        ctx.addIssue({ code: "custom", message: "the card has expired" });
        return z.NEVER;
      }
      return expiry;
    }),
  cvc: z.string().regex(/^\d{3,4}$/, { message: "CVC must be 3 or 4 digits" }),
  holder: z
    .string()
    .trim()
    .max(100, { message: "cardholder name is too long" })
    .regex(/^[\p{L} .'-]*$/u, { message: "cardholder name may contain letters, spaces, dots, apostrophes and hyphens" })
    .default(""),
});
export type CardForm = z.output<typeof CardForm>;
