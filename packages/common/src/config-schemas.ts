import { z } from './zod.js';

/** LOG_LEVEL, shared by both services. */
export const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** API_KEY: when set, callers must present it. */
export const ApiKeySchema = z.string().min(16, 'must be at least 16 characters').optional();
