import { z } from '../zod.js';

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .transform((value) => value === 'true' || value === '1' || value === 'yes')
    .default(fallback);

// A topic level HA accepts in a discovery topic, and one no MQTT wildcard can be confused with.
const TOPIC = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;
const topic = () => z.string().regex(TOPIC, 'must be topic levels of letters, digits, _ or - separated by /');

/**
 * The MQTT bridge's variables, spread into a service's config schema like HttpAccessShape. No MQTT_URL: the bridge is
 * off and the `mqtt` package is never loaded. `baseTopic` is the service's default MQTT_BASE_TOPIC.
 */
export function mqttShape(baseTopic: string) {
  return {
    /** mqtt://host[:port] or mqtts://host[:port]; credentials in it are taken out and used as MQTT_USERNAME/PASSWORD. */
    MQTT_URL: z.url({ protocol: /^mqtts?$/, error: 'must be an mqtt:// or mqtts:// URL' }).optional(),
    MQTT_USERNAME: z.string().min(1).optional(),
    MQTT_PASSWORD: z.string().min(1).optional(),
    /** PEM file of the certificate authority that signed the broker's certificate (mqtts:// with a private CA). */
    MQTT_CA_FILE: z.string().min(1).optional(),
    /** false: accept any broker certificate (a self-signed one without MQTT_CA_FILE); the connection is then not authenticated. */
    MQTT_REJECT_UNAUTHORIZED: flag(true),
    MQTT_DISCOVERY_PREFIX: topic().default('homeassistant'),
    MQTT_BASE_TOPIC: topic().default(baseTopic),
    /** First and longest wait before reconnecting to a lost broker (doubling between them). */
    MQTT_RECONNECT_MIN_MS: z.coerce.number().int().min(10).max(3_600_000).default(1_000),
    MQTT_RECONNECT_MAX_MS: z.coerce.number().int().min(10).max(3_600_000).default(60_000),
  };
}

/** What a config holding mqttShape's variables looks like. */
export type MqttConfig = z.infer<z.ZodObject<ReturnType<typeof mqttShape>>>;

/** The connection settings the bridge works with: plain options, credentials apart from the URL. */
export interface MqttSettings {
  /** The broker URL without credentials. */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  caFile?: string | undefined;
  rejectUnauthorized: boolean;
  discoveryPrefix: string;
  baseTopic: string;
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

/** The bridge's settings from a config, or undefined when MQTT_URL is unset (the bridge is off). */
export function mqttSettingsOf(config: MqttConfig): MqttSettings | undefined {
  if (config.MQTT_URL === undefined) return undefined;
  const url = new URL(config.MQTT_URL);
  const username = config.MQTT_USERNAME ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const password = config.MQTT_PASSWORD ?? (url.password ? decodeURIComponent(url.password) : undefined);
  url.username = '';
  url.password = '';
  return {
    url: url.href.replace(/\/$/, ''),
    username,
    password,
    caFile: config.MQTT_CA_FILE,
    rejectUnauthorized: config.MQTT_REJECT_UNAUTHORIZED,
    discoveryPrefix: config.MQTT_DISCOVERY_PREFIX,
    baseTopic: config.MQTT_BASE_TOPIC,
    reconnectMinMs: config.MQTT_RECONNECT_MIN_MS,
    reconnectMaxMs: Math.max(config.MQTT_RECONNECT_MIN_MS, config.MQTT_RECONNECT_MAX_MS),
  };
}

/** The broker as /health and the logs name it: scheme, host and port, never a user or password. */
export function brokerLabel(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'mqtts:' ? '8883' : '1883');
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}
