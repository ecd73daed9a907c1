import { type Api, processInfo, registerHealthRoute, z } from '@homeops/common';
import { MQTT_OFF, MqttStatusSchema, type MqttStatus } from '@homeops/common/mqtt';
import type { DeliveryWorker } from '../domain/delivery.worker.js';
import type { NotificationRepository } from '../domain/notification-repository.js';
import type { PushProvider } from '../domain/push-provider.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.js';

/** What /health reads; every part is diagnostics without secrets. */
export interface HealthDeps {
  repository: NotificationRepository;
  provider: PushProvider;
  delivery: DeliveryWorker;
  /** Emergencies whose receipt is being followed. */
  emergencies: () => number;
  streams: () => number;
  startedAt: number;
  /** The clock's time, for the uptime. */
  now: () => number;
  /** ALLOW_OPEN_LAN took effect: listening beyond loopback without a key. */
  openLan?: boolean;
  /** The MQTT bridge to Home Assistant; `off` when MQTT_URL is unset. */
  mqtt?: () => MqttStatus;
}

/** What /health tells beside the envelope. */
const HealthDetails = {
  storage: z.object({
    engine: z.enum(['yaml', 'postgres', 'memory']),
    path: z.string(),
    writable: z.boolean(),
    records: z.number(),
    fileBytes: z.number(),
    lastWriteAt: z.string().nullable(),
    lastError: z.string().nullable(),
  }),
  provider: z.object({
    enabled: z.boolean(),
    lastSuccessAt: z.string().nullable(),
    lastError: z.object({ message: z.string(), at: z.string() }).nullable(),
    quota: z.object({ limit: z.number().nullable(), remaining: z.number().nullable(), resetAt: z.string().nullable() }).nullable(),
    recipients: z
      .array(
        z.object({
          recipient: z.string(),
          state: z.enum(['unchecked', 'valid', 'invalid', 'unreachable']),
          problem: z.string().optional(),
          devices: z.array(z.string()).optional(),
          checkedAt: z.string().optional(),
        }),
      )
      .optional()
      .openapi({ description: "Each recipient alias (`default`: PROVIDER_USER_KEY) and what Pushover's key validation said; never a key" }),
    circuit: z
      .object({ open: z.boolean(), since: z.string().nullable(), reason: z.string().nullable(), nextProbeAt: z.string().nullable() })
      .optional()
      .openapi({ description: 'Open after repeated 4xx answers: nothing is sent until a key validation succeeds' }),
    retriesScheduled: z.number(),
    fallback: z
      .array(
        z.object({
          recipient: z.string(),
          channel: z.enum(['ntfy', 'email']),
          name: z.string().openapi({ description: 'host/topic or the mail address; never the access token' }),
          lastResult: z.enum(['sent', 'failed']).nullable(),
          at: z.string().nullable(),
          error: z.string().optional(),
        }),
      )
      .openapi({ description: "Each recipient's fallback target and its last result (empty without fallback targets)" }),
    emergenciesRinging: z.number().openapi({ description: 'Emergency notifications whose receipt is being followed' }),
  }),
  streams: z.number(),
  mqtt: MqttStatusSchema,
  process: z.record(z.string(), z.unknown()),
};

async function assess(deps: HealthDeps) {
  const storage = await deps.repository.stats();
  const provider = deps.provider.status();
  const problems: string[] = [];
  if (!storage.writable) problems.push(`the history ${storage.path} cannot be written${storage.lastError ? `: ${storage.lastError}` : ''}`);
  if (!provider.enabled) problems.push('delivery is off: PROVIDER_USER_KEY and PROVIDER_API_TOKEN are not set');
  const failingSince = provider.lastError && (!provider.lastSuccessAt || provider.lastError.at > provider.lastSuccessAt);
  if (provider.enabled && failingSince) problems.push(`the last delivery attempt failed: ${provider.lastError?.message}`);
  if (provider.quota?.remaining === 0) problems.push("Pushover's monthly message quota is used up");
  if (provider.circuit?.open) problems.push(`sending is paused after repeated rejections: ${provider.circuit.reason ?? ''}`);
  for (const check of provider.recipients ?? []) {
    if (check.state === 'invalid') problems.push(`recipient ${check.recipient}: ${check.problem ?? 'its key is not valid'}`);
  }
  const fallback = deps.delivery.fallbackTargets;
  for (const target of fallback) {
    if (target.lastResult === 'failed') problems.push(`fallback ${target.name} of recipient ${target.recipient}: ${target.error ?? 'failed'}`);
  }
  const mqtt = deps.mqtt?.() ?? MQTT_OFF;
  if (mqtt.state === 'disconnected') problems.push(`the MQTT broker ${mqtt.broker ?? ''} cannot be reached: ${mqtt.lastError ?? 'no answer'}`);
  return {
    error: !storage.writable,
    problems,
    details: {
      storage,
      provider: { ...provider, retriesScheduled: deps.delivery.scheduled, fallback, emergenciesRinging: deps.emergencies() },
      streams: deps.streams(),
      mqtt,
      process: processInfo(),
    },
  };
}

/** GET /health: storage, provider and process diagnostics; 503 when the history cannot be written. */
export function registerHealthRoutes(api: Api, deps: HealthDeps): void {
  registerHealthRoute(api, {
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    schemaName: 'NotificationsHealth',
    summary: 'Service status and diagnostics',
    serving: 'Serving (status ok or degraded)',
    failing: 'The history cannot be written (status error)',
    details: HealthDetails,
    startedAt: deps.startedAt,
    now: deps.now,
    openLan: deps.openLan ?? false,
    assess: () => assess(deps),
  });
}
