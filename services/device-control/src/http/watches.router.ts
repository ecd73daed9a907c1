import { z, type Api } from '@homeops/common';
import type { DeviceWatches } from '../domain/watches/device-watches.js';
import { WatchBodySchema, WatchNameSchema } from './watches.schemas.js';

const NameParams = z.object({ name: WatchNameSchema });
const WatchViewSchema = WatchBodySchema.extend({
  name: z.string(),
  state: z
    .enum(['quiet', 'holding', 'firing', 'clearing'])
    .openapi({ description: 'quiet; holding (true, not long enough yet); firing (sent); clearing (false, not long enough yet)' }),
  messagesPerHour: z.number().int().openapi({ description: 'Cloud messages per hour its readings cost (0: pushes only, or the device is on the LAN)' }),
}).openapi('Watch');

/** /watches: device conditions that send one notification per episode through the notification service. */
export function registerWatchRoutes(api: Api, watches: DeviceWatches): void {
  api.route({
    method: 'get',
    path: '/watches',
    summary: 'The device watches, where each stands and what its readings cost',
    access: 'devices:read',
    tags: ['watches'],
    responses: { 200: { description: 'Every watch', schema: z.object({ watches: z.array(WatchViewSchema) }) } },
    handler: (_input, _req, res) => void res.json({ watches: watches.list() }),
  });
  api.route({
    method: 'put',
    path: '/watches/{name}',
    summary:
      'Creates or replaces a watch (door open, power below, offline, battery, temperature, leak, smoke, open); refused when its reads would not fit the budget',
    access: 'admin',
    tags: ['watches'],
    params: NameParams,
    body: WatchBodySchema,
    errors: [
      'DEVICE_NOT_FOUND',
      'WATCH_OVER_BUDGET',
      'LIMIT_REACHED',
      'WATCHES_OFF',
      'MALFORMED_JSON',
      'JSON_TOO_DEEP',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    responses: { 200: { description: 'The watch', schema: WatchViewSchema } },
    handler: async ({ params, body }, _req, res) => void res.json(await watches.put(params.name, body)),
  });
  api.route({
    method: 'delete',
    path: '/watches/{name}',
    summary: 'Removes a watch',
    access: 'admin',
    tags: ['watches'],
    params: NameParams,
    errors: ['WATCH_NOT_FOUND'],
    responses: { 204: { description: 'Removed' } },
    handler: async ({ params }, _req, res) => {
      await watches.remove(params.name);
      res.status(204).end();
    },
  });
}
