import { z } from './zod.js';

/** The error body of every failure of both services. */
export const ErrorBodySchema = z
  .object({
    error: z.string(),
    solution: z.string(),
    code: z.string().openapi({ description: 'A stable string code, e.g. DEVICE_NOT_FOUND; scripts branch on it' }),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('ErrorBody');

export type ErrorBody = z.infer<typeof ErrorBodySchema>;
