import { z } from "zod";

/**
 * Query parameters that mean the same on every console API route that has them, so they are
 * read (and refused) with the same sentences everywhere.
 */

/** `limit`: a whole number of rows from 1 to `max`, `fallback` when absent. */
export const limitParam = (max: number, fallback: number, notANumber = "limit must be a whole number.") =>
  z.coerce
    .number({ error: notANumber })
    .int("limit must be a whole number.")
    .min(1, "limit must be at least 1.")
    .max(max, `limit can be at most ${max}.`)
    .default(fallback);
