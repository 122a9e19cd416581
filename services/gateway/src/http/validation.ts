import { zValidator } from "@hono/zod-validator";
import { invalidRequest } from "@payaccept/contracts";
import { jsonError } from "@payaccept/platform";
import type { ValidationTargets } from "hono";
import type { z } from "zod";

/** zValidator whose failure is the spec's 400 Error shape listing every problem at once. */
export const validate = <T extends keyof ValidationTargets, S extends z.ZodType>(target: T, schema: S) =>
  zValidator(target, schema, (result, c) => {
    if (!result.success) return jsonError(c, invalidRequest(result.error));
  });
