import { MqttStatusSchema } from '@homeops/common/mqtt';
import { type HealthEnvelope, z } from '@homeops/common';
import type { FamilyDeviceCounts } from '../domain/device-family.js';

/** What /health tells beside the envelope; `familyCounts`: the device families' counts in `devices` (after the rest). */
export function healthDetails<F extends z.ZodRawShape>(familyCounts: F) {
  return {
    backend: z.enum(['meross', 'simulator']),
    cloud: z.object({
      state: z.enum(['connecting', 'connected', 'backing-off', 'locked-out', 'needs-mfa', 'failed']),
      lastError: z.object({ code: z.union([z.string(), z.number()]).nullable(), message: z.string(), at: z.string() }).nullable(),
      retryAt: z.string().nullable(),
      action: z.string().nullable().openapi({ description: 'What you must do (or until when to wait); null while all is well' }),
      tokenStore: z
        .object({ file: z.string().nullable(), writable: z.boolean().nullable(), error: z.string().nullable(), savedAt: z.string().nullable() })
        .openapi({ description: 'Whether the session token survives a restart; writable null where no token is kept' }),
    }),
    sync: z.object({
      lastAt: z.string().nullable(),
      ok: z.boolean().nullable(),
      error: z.string().nullable(),
      lastSuccessAt: z.string().nullable(),
      lastResult: z.object({ total: z.number(), added: z.number(), removed: z.number(), updated: z.number() }).nullable(),
      intervalSeconds: z.number(),
      source: z
        .enum(['cloud', 'stored'])
        .nullable()
        .openapi({ description: 'Where the device list came from: the cloud, or the list kept from an earlier run while the cloud cannot be reached' }),
    }),
    devices: z.object({
      total: z.number(),
      online: z.number(),
      controllable: z.number(),
      ...familyCounts,
    }),
    budget: z
      .object({
        windows: z.array(
          z.object({
            window: z.enum(['hour', 'burst']),
            seconds: z.number(),
            limit: z.number(),
            used: z.number().openapi({ description: 'Messages sent in the window, plus calls admitted and still running' }),
            remaining: z.number(),
            reservedForCallers: z.number().openapi({ description: 'The last share of the window background work never spends' }),
          }),
        ),
        sent: z
          .object({ api: z.number(), mqtt: z.number(), lan: z.number() })
          .openapi({ description: 'Messages sent since the start: api and mqtt reached the cloud and count; lan went to devices directly and do not' }),
      })
      .openapi({ description: 'The account-wide cloud message budget (every HTTP API call and MQTT request counts)' }),
    lan: z
      .object({
        enabled: z.boolean(),
        summary: z.string().openapi({ description: 'Devices reached over the LAN, e.g. "7 of 8 devices", or "off"' }),
        total: z.number(),
        lan: z.number(),
        cloud: z.number(),
        unreachable: z.number(),
        problems: z.array(z.object({ uuid: z.string(), name: z.string(), problem: z.string() })),
      })
      .openapi({ description: 'How devices are reached, apart from the cloud session: over the LAN, through the cloud, or neither' }),
    commands: z.object({ limitPerMinute: z.number(), usedLastMinute: z.number() }).openapi({ description: 'The burst window under its 1.0 name' }),
    eventStreams: z.number(),
    mqtt: MqttStatusSchema,
  };
}

type HealthDetails = ReturnType<typeof healthDetails<Record<never, never>>>;

/** GET /health in full (with the key, or when none is set): the envelope common writes, the problems and the details. */
export type HealthBody = HealthEnvelope & { uptimeSeconds: number; problems: string[] } & z.infer<z.ZodObject<HealthDetails>> & {
    devices: Partial<FamilyDeviceCounts>;
  };
