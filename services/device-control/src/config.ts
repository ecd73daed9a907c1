import { mqttShape } from '@homeops/common/mqtt';
import { HttpAccessShape, loadConfig, loadConfigOrExit, z, type EnvAliases, type LoadConfigOptions } from '@homeops/common';
import type { LanOptions } from './adapters/meross/meross-cloud.adapter.js';
import type { DeviceServiceOptions } from './domain/device.service.js';

/** Older names users of the original service have in their `.env`; the CLOUD_ names win when both are set. */
export const ENV_ALIASES = {
  CLOUD_EMAIL: ['MEROSS_EMAIL'],
  CLOUD_PASSWORD: ['MEROSS_PASSWORD'],
  /** 1.0 counted only commands, per minute; the variable now bounds the burst window of all messages. */
  CLOUD_MAX_MESSAGES_PER_MINUTE: ['CLOUD_MAX_COMMANDS_PER_MINUTE'],
  PORT: [{ name: 'DEVICE_CONTROL_PORT', wins: true }],
} satisfies EnvAliases;

/** Any `https://host[:port]`; the value is never echoed back in an error because it may be private. */
const CloudApiUrlSchema = z
  .string()
  .default('https://iotx.meross.com')
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a URL such as https://iotx-eu.meross.com' });
      return;
    }
    if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use https://' });
    if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
    if (url.pathname !== '/' || url.search || url.hash) {
      ctx.addIssue({ code: 'custom', message: 'must be only scheme, host and port (no path)' });
    }
  })
  .transform((value) => new URL(value).origin);

const positiveInt = (min: number, max: number, fallback: number) => z.coerce.number().int(`must be an integer`).min(min).max(max).default(fallback);

/** `uuid=host[:port]` pairs, comma-separated; an address is never echoed back in an error (it may be private). */
const LanAddressesSchema = z
  .string()
  .default('')
  .superRefine((value, ctx) => {
    for (const [i, pair] of splitPairs(value).entries()) {
      const match = /^([0-9A-Za-z-]{1,64})=([0-9A-Za-z.-]+)(?::(\d{1,5}))?$/.exec(pair);
      const port = match?.[3] === undefined ? 80 : Number(match[3]);
      if (!match || port < 1 || port > 65_535) {
        ctx.addIssue({ code: 'custom', message: `entry ${i + 1} must be uuid=host or uuid=host:port (e.g. 2301...=192.168.1.23)` });
      }
    }
  })
  .transform((value) => new Map(splitPairs(value).map((pair) => pair.split('=') as [string, string])));

function splitPairs(value: string): string[] {
  return value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  ...HttpAccessShape,
  CLOUD_EMAIL: z.string().min(3, 'must be the e-mail address of the Meross account').optional(),
  CLOUD_PASSWORD: z.string().min(1).optional(),
  CLOUD_MFA_CODE: z
    .string()
    .regex(/^\d{6}$/, 'must be the 6-digit code of the authenticator app')
    .optional(),
  CLOUD_API_URL: CloudApiUrlSchema,
  CLOUD_TOKEN_FILE: z.string().min(1).default('./data/cloud-token.json'),
  CLOUD_BACKEND: z.enum(['meross', 'simulator']).optional(),
  /** Account-wide, every message to the cloud; Meross asks integrations to stay under about 200 per hour. */
  CLOUD_MAX_MESSAGES_PER_HOUR: positiveInt(1, 3_600, 180),
  /** The burst window of the same budget. */
  CLOUD_MAX_MESSAGES_PER_MINUTE: positiveInt(1, 600, 15),
  /** 0 turns the periodic sync off (startup and POST /devices/sync still run). */
  CLOUD_SYNC_INTERVAL_SECONDS: z.coerce
    .number()
    .int('must be an integer')
    .min(0)
    .max(86_400)
    .default(300)
    .refine((s) => s === 0 || s >= 10, 'must be 0 (off) or at least 10'),
  /** Least time between two POST /devices/sync that ran (one in flight is joined; 0: no gap). */
  CLOUD_SYNC_MIN_GAP_SECONDS: positiveInt(0, 3_600, 30),
  /** Background state reads (after a sync or a reconnect): at most one per device per this many seconds. */
  CLOUD_BACKGROUND_READ_INTERVAL_SECONDS: positiveInt(1, 86_400, 60),
  CLOUD_REQUEST_TIMEOUT_MS: positiveInt(100, 120_000, 10_000),
  CLOUD_COMMAND_TIMEOUT_MS: positiveInt(100, 120_000, 5_000),
  /** A dropped Meross broker connection is made again after this long (meross-cloud's own 5 s). */
  CLOUD_BROKER_RECONNECT_MS: positiveInt(100, 300_000, 5_000),
  /** First wait after the cloud API could not be reached with a valid token; doubles with each further failure. */
  CLOUD_RETRY_BACKOFF_MS: positiveInt(100, 600_000, 5_000),
  SSE_HEARTBEAT_SECONDS: positiveInt(1, 3_600, 15),
  /** Local control: commands and reads over the LAN where a device answers there, the cloud as the fallback. */
  MEROSS_LAN: z.enum(['on', 'off']).default('on'),
  /** Pinned LAN addresses, `uuid=host[:port],…`; they win over what devices tell. */
  MEROSS_LAN_ADDRESSES: LanAddressesSchema,
  /** Devices whose pushes do not arrive (the cloud is down) are read over the LAN this often; 0 off. */
  MEROSS_LAN_POLL_SECONDS: z.coerce
    .number()
    .min(0)
    .max(3_600)
    .default(30)
    .refine((s) => s === 0 || s >= 0.1, 'must be 0 (off) or at least 0.1'),
  /** Deadline of one LAN call; past it the device's message goes through the cloud (or 504 without one). */
  MEROSS_LAN_TIMEOUT_MS: positiveInt(100, 60_000, 3_000),
  /** The port of a learnt address (devices tell only their IP): 80 for real devices. */
  MEROSS_LAN_PORT: positiveInt(1, 65_535, 80),
  /** Devices the simulator adds beyond its three fixed ones (benchmarks, demos). */
  SIMULATOR_EXTRA_DEVICES: positiveInt(0, 10_000, 0),
  /** How long a simulated door or blind takes to travel all the way; tests that wait on it shorten it. */
  SIMULATOR_TRAVEL_MS: positiveInt(0, 60_000, 3_000),
  // The MQTT bridge to Home Assistant (docs/home-assistant.md): off without MQTT_URL.
  ...mqttShape('homeops/device-control'),
  /** Readings devices do not push (the families' budgeted reads) go to Home Assistant this often, from the budget's background share; 0 never. */
  MQTT_READ_INTERVAL_SECONDS: positiveInt(0, 86_400, 300),
  /** Device watches (docs/watches.md): where they are kept, and the notification service they send through. */
  WATCHES_FILE: z.string().min(1).optional(),
  NOTIFY_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL of the notification service' }).optional(),
  /** A notifications:send token of the notification service (or its API key). */
  NOTIFY_TOKEN: z.string().min(1).optional(),
  NOTIFY_TIMEOUT_MS: positiveInt(100, 60_000, 5_000),
});

/** Every variable of device-control; `.env.example` and docs/configuration.md list the same names. */
export const ConfigSchema = EnvSchema.superRefine((env, ctx) => {
  const hasEmail = env.CLOUD_EMAIL !== undefined;
  const hasPassword = env.CLOUD_PASSWORD !== undefined;
  if (hasEmail !== hasPassword) {
    const missing = hasEmail ? 'CLOUD_PASSWORD' : 'CLOUD_EMAIL';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'is required when the other account variable is set' });
  }
  if (env.CLOUD_MAX_MESSAGES_PER_MINUTE > env.CLOUD_MAX_MESSAGES_PER_HOUR) {
    ctx.addIssue({ code: 'custom', path: ['CLOUD_MAX_MESSAGES_PER_MINUTE'], message: 'must not be more than CLOUD_MAX_MESSAGES_PER_HOUR' });
  }
  if (env.CLOUD_BACKEND === 'meross' && !hasEmail && !hasPassword) {
    ctx.addIssue({
      code: 'custom',
      path: ['CLOUD_BACKEND'],
      message: 'meross needs CLOUD_EMAIL and CLOUD_PASSWORD (or MEROSS_EMAIL and MEROSS_PASSWORD)',
    });
  }
}).transform((env) => {
  const hasCredentials = env.CLOUD_EMAIL !== undefined && env.CLOUD_PASSWORD !== undefined;
  return {
    ...env,
    CLOUD_BACKEND: env.CLOUD_BACKEND ?? (hasCredentials ? ('meross' as const) : ('simulator' as const)),
    /** True when no backend was chosen and no credentials exist: main warns loudly. */
    simulatorByDefault: env.CLOUD_BACKEND === undefined && !hasCredentials,
  };
});

/** The validated configuration of device-control. */
export type Config = z.infer<typeof ConfigSchema>;

const LOAD_OPTIONS = { service: 'device-control', aliases: ENV_ALIASES } as const;

/** Parses a given environment (tests, tools); throws ConfigError naming each bad variable, never a value. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(ConfigSchema, { ...LOAD_OPTIONS, env } satisfies LoadConfigOptions);
}

/** Reads the environment (and `.env` files); exits with every problem listed when it is invalid. */
export function readConfig(): Config {
  return loadConfigOrExit(ConfigSchema, LOAD_OPTIONS);
}

/** The device service's limits and timings, from the config. */
export function deviceServiceOptions(config: Config): Omit<DeviceServiceOptions, 'families'> {
  return {
    maxMessagesPerHour: config.CLOUD_MAX_MESSAGES_PER_HOUR,
    maxMessagesPerMinute: config.CLOUD_MAX_MESSAGES_PER_MINUTE,
    syncIntervalSeconds: config.CLOUD_SYNC_INTERVAL_SECONDS,
    syncMinGapSeconds: config.CLOUD_SYNC_MIN_GAP_SECONDS,
    backgroundReadIntervalSeconds: config.CLOUD_BACKGROUND_READ_INTERVAL_SECONDS,
    requestTimeoutMs: config.CLOUD_REQUEST_TIMEOUT_MS,
    commandTimeoutMs: config.CLOUD_COMMAND_TIMEOUT_MS,
  };
}

/** How often devices without pushes are polled over the LAN (0: off, as with MEROSS_LAN=off). */
export function lanPollSeconds(config: Config): number {
  return config.MEROSS_LAN === 'on' ? config.MEROSS_LAN_POLL_SECONDS : 0;
}

/** The Meross adapter's LAN options, from the config. */
export function lanOptions(config: Config): LanOptions {
  return {
    enabled: config.MEROSS_LAN === 'on',
    addresses: config.MEROSS_LAN_ADDRESSES,
    timeoutMs: config.MEROSS_LAN_TIMEOUT_MS,
    port: config.MEROSS_LAN_PORT,
  };
}
