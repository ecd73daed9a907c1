import type { Api, AppMetrics } from '@homeops/common';
import type { DeviceService } from '../../../domain/device.service.js';
import { SWITCHES } from '../domain/switches.js';
import { assertMayControl } from '../../../http/control-families.js';
import { COMMAND_ERRORS } from '../../../http/devices.router.js';
import { UuidParamsSchema } from '../../../http/device.schemas.js';
import { countSwitchCommands, UNCOUNTED } from './switch.metrics.js';
import { ChannelParamsSchema, CommandResultSchema, SetChannelBodySchema, ToggleBodySchema } from './switch.schemas.js';

/** POST /devices/:uuid/toggle and PUT /devices/:uuid/channels/:channel: a channel's on/off, counted unless METRICS=off. */
export function registerSwitchRoutes(api: Api, devices: DeviceService, metrics: AppMetrics | undefined): void {
  const run = metrics ? countSwitchCommands(metrics) : UNCOUNTED;
  api.route({
    method: 'post',
    path: '/devices/{uuid}/toggle',
    summary: 'Flip a channel (read from the device first when its state is unknown)',
    access: 'devices:control',
    tags: ['devices'],
    params: UuidParamsSchema,
    body: ToggleBodySchema,
    responses: { 200: { description: 'The channel was flipped', schema: CommandResultSchema } },
    errors: [...COMMAND_ERRORS],
    handler: async ({ params, body, principal }, _req, res) => {
      assertMayControl(principal, params.uuid, 'switch');
      const result = await run('toggle', () => devices.use(SWITCHES).toggle(params.uuid, body.channel));
      res.json({ status: 'success', device: result.device, action: 'toggle', channel: result.channel, on: result.on });
    },
  });

  api.route({
    method: 'put',
    path: '/devices/{uuid}/channels/{channel}',
    summary: 'Switch a channel on or off (idempotent)',
    access: 'devices:control',
    tags: ['devices'],
    params: ChannelParamsSchema,
    body: SetChannelBodySchema,
    responses: { 200: { description: 'The channel is in the requested state', schema: CommandResultSchema } },
    errors: [...COMMAND_ERRORS],
    handler: async ({ params, body, principal }, _req, res) => {
      assertMayControl(principal, params.uuid, 'switch');
      const result = await run('set', () => devices.use(SWITCHES).set(params.uuid, params.channel, body.on));
      const action = result.on ? 'on' : 'off';
      res.json({ status: 'success', device: result.device, action, channel: result.channel, on: result.on });
    },
  });
}
