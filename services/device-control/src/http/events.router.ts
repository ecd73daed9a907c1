import { type Api, EventReplay, type EventStream, lastEventIdOf, z } from '@homeops/common';
import type { EventStreams } from './event-streams.js';
import type { DeviceEvent } from '../domain/device-events.js';
import type { DeviceService } from '../domain/device.service.js';

/** How many events are kept for clients that reconnect with Last-Event-ID. */
export const EVENT_REPLAY_SIZE = 1000;

/** GET /events: live device events as Server-Sent Events, with ids, a replay for reconnects, and a heartbeat comment. */
export function registerEventRoutes(api: Api, devices: DeviceService, eventStreams: EventStreams, familyEvents: readonly string[]): void {
  const replay = new EventReplay<DeviceEvent>(EVENT_REPLAY_SIZE);
  const streams = new Set<EventStream>();
  devices.onEvent((event) => {
    const id = replay.push(event);
    for (const stream of streams) stream.send(event.type, event, id);
  });
  api.route({
    method: 'get',
    path: '/events',
    summary: `Live events: ${['channel', ...familyEvents, 'online', 'device', 'device-removed', 'sync', 'session'].join(', ')} and watch`,
    access: 'devices:read',
    tags: ['events'],
    errors: ['TOO_MANY_STREAMS'],
    responses: {
      200: {
        description:
          `An event stream; each event names its type, carries it as JSON and has an id. Reconnect with Last-Event-ID to get ` +
          `what you missed (the last ${EVENT_REPLAY_SIZE} events are kept); a \`reset\` event says too much was missed: reload.`,
        contentType: 'text/event-stream',
        schema: z.string(),
      },
    },
    handler: (_input, req, res) => {
      const stream = eventStreams.open(req, res);
      const lastEventId = lastEventIdOf(req);
      if (lastEventId !== undefined) {
        const missed = replay.since(lastEventId);
        if (missed === undefined) stream.send('reset', { reason: 'the events since your Last-Event-ID are no longer kept: reload the state' });
        else for (const { id, data } of missed) stream.send(data.type, data, id);
      }
      streams.add(stream);
      res.on('close', () => streams.delete(stream));
    },
  });
}
