import { type Api, type EventStreamHub, z } from '@homeops/common';
import type { DeviceService } from '../domain/device.service.js';

/** GET /events: live device events as Server-Sent Events, with a heartbeat comment. */
export function registerEventRoutes(api: Api, devices: DeviceService, hub: EventStreamHub): void {
  let nextId = 1;
  api.route({
    method: 'get',
    path: '/events',
    summary: 'Live events: channel, garageDoor, cover, light, power, energy, hub, online, device, device-removed, sync and session',
    tags: ['events'],
    responses: {
      200: {
        description: 'An event stream; each event names its type and carries it as JSON',
        contentType: 'text/event-stream',
        schema: z.string(),
      },
    },
    handler: (_input, req, res) => {
      const stream = hub.open(req, res);
      const unsubscribe = devices.onEvent((event) => stream.send(event.type, event, String(nextId++)));
      res.on('close', unsubscribe);
    },
  });
}
