import type { Api } from '@homeops/common';
import type { DeviceService } from '../../../domain/device.service.js';
import { GARAGE_DOORS } from '../domain/garage-doors.js';
import { assertMayControl } from '../../../http/control-families.js';
import { FamilyChannelParamsSchema, UuidParamsSchema } from '../../../http/device.schemas.js';
import { GarageDoorResultSchema, GarageDoorsSchema } from './garage-door.schemas.js';
import { COMMAND_ERRORS, READ_ERRORS } from '../../../http/devices.router.js';

/** Garage door openers (msg100/msg200): the doors' states, open and close. */
export function registerGarageDoorRoutes(api: Api, devices: DeviceService): void {
  api.route({
    method: 'get',
    path: '/devices/{uuid}/garage-door',
    summary: 'The state of each door of a garage door opener (read from it when unknown)',
    access: 'devices:read',
    tags: ['garage doors'],
    params: UuidParamsSchema,
    responses: { 200: { description: 'Each door: open, closed, opening or closing', schema: GarageDoorsSchema } },
    errors: [...READ_ERRORS],
    handler: async ({ params }, _req, res) => {
      const doors = await devices.use(GARAGE_DOORS).read(params.uuid);
      res.json({ uuid: params.uuid, name: devices.getDevice(params.uuid).name, doors });
    },
  });

  for (const action of ['open', 'close'] as const) {
    api.route({
      method: 'post',
      path: `/devices/{uuid}/garage-door/{channel}/${action}`,
      summary: `${action === 'open' ? 'Open' : 'Close'} a garage door (idempotent: nothing is sent when it already is or goes there)`,
      access: 'devices:control',
      tags: ['garage doors'],
      params: FamilyChannelParamsSchema,
      responses: { 200: { description: "The opener's answer", schema: GarageDoorResultSchema } },
      errors: [...COMMAND_ERRORS],
      handler: async ({ params, principal }, _req, res) => {
        assertMayControl(principal, params.uuid, 'garageDoor');
        const result = await devices.use(GARAGE_DOORS).set(params.uuid, params.channel, action);
        res.json({ status: 'success', ...result });
      },
    });
  }
}
