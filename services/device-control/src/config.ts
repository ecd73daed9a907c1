import { ApiKeySchema, LogLevelSchema, loadConfigOrExit, z } from '@homeops/common';

/** Every variable of device-control; `.env.example` and the README list the same names. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: LogLevelSchema,
  API_KEY: ApiKeySchema,
});

export type Config = z.infer<typeof ConfigSchema>;

/** Reads the environment (and `.env` files); exits with every problem listed when it is invalid. */
export function readConfig(): Config {
  return loadConfigOrExit(ConfigSchema, { service: 'device-control', portVariable: 'DEVICE_CONTROL_PORT' });
}
