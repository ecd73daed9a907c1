import { type Api, type EventStreamHub, z } from '@homeops/common';
import type { DeviceCloud } from '../domain/device-cloud.js';
import type { DeviceService } from '../domain/device.service.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.js';

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded', 'error']),
    service: z.string(),
    version: z.string(),
    uptimeSeconds: z.number(),
    backend: z.enum(['meross', 'simulator']),
    cloud: z.object({
      state: z.enum(['connecting', 'connected', 'backing-off', 'failed']),
      lastError: z
        .object({ code: z.union([z.string(), z.number()]).nullable(), message: z.string(), at: z.string() })
        .nullable(),
      retryAt: z.string().nullable(),
    }),
    sync: z.object({
      lastAt: z.string().nullable(),
      ok: z.boolean().nullable(),
      error: z.string().nullable(),
      lastSuccessAt: z.string().nullable(),
      lastResult: z
        .object({ total: z.number(), added: z.number(), removed: z.number(), updated: z.number() })
        .nullable(),
      intervalSeconds: z.number(),
    }),
    devices: z.object({
      total: z.number(),
      online: z.number(),
      controllable: z.number(),
      awaitingCommandChannel: z.number().openapi({ description: 'Online switches whose command channel is down' }),
    }),
    commands: z.object({ limitPerMinute: z.number(), usedLastMinute: z.number() }),
    eventStreams: z.number(),
  })
  .openapi('DeviceControlHealth');

/** What /health reads from. */
export interface HealthDeps {
  cloud: DeviceCloud;
  devices: DeviceService;
  hub: EventStreamHub;
  startedAt: number;
  now: () => number;
}

/**
 * GET /health: 200 while serving, 503 once the session failed for good. Degraded when the session is not up, the last
 * sync failed, or online switches cannot be reached over their command channel (a broker outage).
 */
export function registerHealthRoutes(api: Api, deps: HealthDeps): void {
  api.route({
    method: 'get',
    path: '/health',
    summary: 'Service, cloud session, sync and device status',
    tags: ['health'],
    responses: {
      200: { description: 'Serving', schema: HealthSchema },
      503: { description: 'The cloud session failed for good', schema: HealthSchema },
    },
    handler: (_input, _req, res) => {
      const { backend, state, lastError, retryAt } = deps.cloud.status();
      const health = deps.devices.health();
      const healthy = state === 'connected' && health.sync.ok === true && health.devices.awaitingCommandChannel === 0;
      const status = state === 'failed' ? 'error' : healthy ? 'ok' : 'degraded';
      res.status(status === 'error' ? 503 : 200).json({
        status,
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        uptimeSeconds: Math.round((deps.now() - deps.startedAt) / 1000),
        backend,
        cloud: { state, lastError, retryAt },
        sync: health.sync,
        devices: health.devices,
        commands: health.commands,
        eventStreams: deps.hub.size,
      });
    },
  });
}
