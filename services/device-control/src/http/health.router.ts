import { type Api, z } from '@homeops/common';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.js';

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded', 'error']),
    service: z.string(),
    version: z.string(),
    uptimeSeconds: z.number(),
  })
  .openapi('DeviceControlHealth');

/** GET /health: is the service serving, and which version. */
export function registerHealthRoutes(api: Api, startedAt: number): void {
  api.route({
    method: 'get',
    path: '/health',
    summary: 'Service status',
    tags: ['health'],
    responses: { 200: { description: 'Serving', schema: HealthSchema } },
    handler: (_input, _req, res) => {
      res.json({
        status: 'ok',
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      });
    },
  });
}
