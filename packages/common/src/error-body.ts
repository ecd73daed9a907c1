import { z } from './zod.js';

/** The error body of every failure of both services. */
export const ErrorBodySchema = z
  .object({
    error: z.string(),
    solution: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('ErrorBody');

export type ErrorBody = z.infer<typeof ErrorBodySchema>;
