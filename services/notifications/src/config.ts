import { HttpAccessShape, loadConfig, loadConfigOrExit, z, type EnvAliases } from '@homeops/common';
import { mqttShape } from '@homeops/common/mqtt';

const positiveInt = () => z.coerce.number().int().positive();
const POSTGRES_URL = /^postgres(ql)?:\/\//;
const httpUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ''));

/** Other names read: those users of the original service have (PROVIDER_* win), a postgres DATABASE_URL. */
export const ENV_ALIASES = {
  PROVIDER_USER_KEY: ['PUSHOVER_USER_KEY'],
  PROVIDER_API_TOKEN: ['PUSHOVER_API_TOKEN'],
  STORAGE_URL: [{ name: 'DATABASE_URL', when: (url: string) => POSTGRES_URL.test(url) }],
} satisfies EnvAliases;

/** The shortest delivery lease allowed: twice a provider call's timeout and 2 s (the default adds 10 s to it). */
export function minLeaseMs(providerTimeoutMs: number): number {
  return 2 * (providerTimeoutMs + 2_000);
}

/** Every variable of notifications; `.env.example` and docs/configuration.md list the same names. */
export const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(9095),
    ...HttpAccessShape,
    STORAGE_PATH: z.string().min(1).default('./data/notifications.yaml'),
    // PostgreSQL instead of the YAML file: several instances may share it. DATABASE_URL is read when it is a postgres one.
    STORAGE_URL: z.string().regex(POSTGRES_URL, 'must be a postgres:// URL').optional(),
    // Attachment files; default a folder beside STORAGE_PATH. Instances sharing PostgreSQL must share this folder too.
    ATTACHMENTS_DIR: z.string().min(1).optional(),
    ATTACHMENTS_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(1024 ** 3), // total of the attachment files (1 GiB); 0: no limit
    PG_POOL_MAX: positiveInt().max(1000).default(10),
    PG_CONNECT_TIMEOUT_MS: positiveInt().default(5_000),
    PG_QUERY_TIMEOUT_MS: positiveInt().default(10_000),
    // With PostgreSQL: how often an instance looks for deliveries left by an instance that stopped or died.
    DELIVERY_SWEEP_MS: positiveInt().default(10_000),
    // With PostgreSQL: how long a claimed attempt stays its instance's; default 2 × (PROVIDER_TIMEOUT_MS + 2 s) + 10 s.
    DELIVERY_LEASE_MS: positiveInt().optional(),
    PROVIDER_USER_KEY: z.string().min(1).optional(),
    PROVIDER_API_TOKEN: z.string().min(1).optional(),
    // The end-to-end encryption key of recipient "default" (set in its Pushover apps, v5+); never shown in an error.
    PROVIDER_ENCRYPTION_KEY: z
      .string()
      .trim()
      .regex(/^[0-9a-f]{64}$/i, 'the encryption key of recipient "default" must be 64 hexadecimal characters (the key set in its Pushover app)')
      .optional(),
    // The title of an encrypted message that has none: Pushover's plaintext default would not decrypt on the phone.
    PROVIDER_APP_NAME: z.string().trim().min(1).max(250).default('homeops'),
    PROVIDER_API_URL: httpUrl.default('https://api.pushover.net'),
    PROVIDER_TIMEOUT_MS: positiveInt().default(10_000),
    // A recipient's fallback targets (ntfy, mail) step in when Pushover has not delivered this long after creation.
    FALLBACK_AFTER_SECONDS: positiveInt().default(60),
    // Mail fallbacks go out through this server (smtp://user:password@host:587 or smtps://…:465); never shown.
    SMTP_URL: z
      .string()
      .trim()
      .regex(/^smtps?:\/\/[^/]+/i, 'SMTP_URL must be smtp://host:port or smtps://host:port (user:password@ before the host when needed)')
      .optional(),
    SMTP_FROM: z.string().trim().min(3).optional(),
    RETENTION_MAX_AGE_DAYS: positiveInt().optional(),
    RETENTION_MAX_PER_RECIPIENT: positiveInt().optional(),
    RETENTION_INTERVAL_MS: positiveInt().default(60 * 60 * 1000),
    // Pushover asks for no retry sooner than 5 s; tests lower it.
    DELIVERY_RETRY_MIN_MS: positiveInt().default(5_000),
    DELIVERY_RETRY_MAX_MS: positiveInt().default(15 * 60 * 1000),
    DELIVERY_MAX_ATTEMPTS: positiveInt().default(10),
    // A delivery still pending after this long (or its ttl, when shorter) is expired, not sent late.
    DELIVERY_MAX_AGE_SECONDS: positiveInt().default(86_400),
    DELIVERY_CONCURRENCY: positiveInt().max(2).default(2),
    SSE_HEARTBEAT_MS: positiveInt().default(15_000),
    // Recipient name → Pushover user or group key (and devices): a YAML file, or `name=key[:device,device];…` here.
    RECIPIENTS_FILE: z.string().min(1).default('./recipients.yaml'),
    RECIPIENTS: z.string().optional(),
    // A recipient not in the map: sent to PROVIDER_USER_KEY (default) or refused with 400 (refuse).
    UNMAPPED_RECIPIENTS: z.enum(['default', 'refuse']).optional(),
    // Priority 2 defaults (Pushover: retry ≥ 30 s, expire ≤ 10800 s) and how often its receipt is checked (≥ 5 s).
    EMERGENCY_RETRY_SECONDS: z.coerce.number().int().min(30).max(10_800).default(60),
    EMERGENCY_EXPIRE_SECONDS: z.coerce.number().int().min(30).max(10_800).default(3600),
    EMERGENCY_POLL_SECONDS: z.coerce.number().int().min(5).max(3600).default(30),
    // Consecutive 4xx answers after which nothing is sent until a key validation succeeds (Pushover blocks such IPs).
    PROVIDER_MAX_REJECTIONS: positiveInt().default(5),
    // Scheduled sends and heartbeats (docs/notifications.md): default plans.json beside the history.
    PLANS_FILE: z.string().min(1).optional(),
    // Webhook templates of one's own besides the built-in ones (docs/webhooks.md); checked at start.
    HOOK_TEMPLATES_FILE: z.string().min(1).optional(),
    // The MQTT bridge to Home Assistant (docs/home-assistant.md): off without MQTT_URL.
    ...mqttShape('homeops/notifications'),
    // Whose entities the bridge shows, comma-separated; default the recipient map's names.
    MQTT_RECIPIENTS: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name.length > 0),
      ),
  })
  .refine((c) => c.PROVIDER_USER_KEY === undefined || c.PROVIDER_API_TOKEN !== undefined, {
    message: 'set both PROVIDER_USER_KEY and PROVIDER_API_TOKEN (or neither, to run with delivery off)',
  })
  .refine((c) => c.PROVIDER_ENCRYPTION_KEY === undefined || c.PROVIDER_USER_KEY !== undefined, {
    message: 'PROVIDER_ENCRYPTION_KEY is the encryption key of recipient "default": set PROVIDER_USER_KEY too (or give it in the recipients file)',
  })
  // A lease shorter than an attempt can take would let another instance send the same attempt again.
  .refine((c) => c.DELIVERY_LEASE_MS === undefined || c.DELIVERY_LEASE_MS > minLeaseMs(c.PROVIDER_TIMEOUT_MS), {
    message: 'DELIVERY_LEASE_MS must be more than 2 × (PROVIDER_TIMEOUT_MS + 2000)',
    path: ['DELIVERY_LEASE_MS'],
  });

export type Config = z.infer<typeof ConfigSchema>;

/** Parses literal settings (tests, the library), never the process environment; throws ConfigError when invalid. */
export function parseConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig(ConfigSchema, { service: 'notifications', env, dotenv: false, aliases: ENV_ALIASES });
}

/** Reads the environment (and `.env` files); exits with every problem listed when it is invalid. */
export function readConfig(): Config {
  return loadConfigOrExit(ConfigSchema, { service: 'notifications', aliases: { ...ENV_ALIASES, PORT: [{ name: 'NOTIFICATIONS_PORT', wins: true }] } });
}
