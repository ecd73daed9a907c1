import type { Api } from '@homeops/common';
import type { DeviceService } from '../../../domain/device.service.js';
import { COVERS, type CoverAction } from '../domain/covers.js';
import { assertMayControl } from '../../../http/control-families.js';
import { FamilyChannelParamsSchema, UuidParamsSchema } from '../../../http/device.schemas.js';
import { CoverPositionBodySchema, CoverResultSchema, CoversSchema } from './cover.schemas.js';
import { COMMAND_ERRORS, READ_ERRORS } from '../../../http/devices.router.js';

const tags = ['covers'];

/** Covers / roller shutters (mrs100): position and motion; open, close, stop, position. */
export function registerCoverRoutes(api: Api, devices: DeviceService): void {
  api.route({
    method: 'get',
    path: '/devices/{uuid}/cover',
    summary: 'Position and motion of each channel of a cover (read from it when unknown)',
    access: 'devices:read',
    tags,
    params: UuidParamsSchema,
    responses: { 200: { description: 'Each channel: position 0–100 and motion', schema: CoversSchema } },
    errors: [...READ_ERRORS],
    handler: async ({ params }, _req, res) => {
      const covers = await devices.use(COVERS).read(params.uuid);
      const device = devices.getDevice(params.uuid);
      res.json({ uuid: params.uuid, name: device.name, positioning: device.coverPositioning ?? false, covers });
    },
  });

  const send = async (uuid: string, channel: number, action: CoverAction) => ({ status: 'success', ...(await devices.use(COVERS).set(uuid, channel, action)) });
  for (const action of ['open', 'close', 'stop'] as const) {
    api.route({
      method: 'post',
      path: `/devices/{uuid}/cover/{channel}/${action}`,
      summary: `${action === 'open' ? 'Open' : action === 'close' ? 'Close' : 'Stop'} a cover`,
      access: 'devices:control',
      tags,
      params: FamilyChannelParamsSchema,
      responses: { 200: { description: 'The device acknowledged; pushes tell where it ends up', schema: CoverResultSchema } },
      errors: [...COMMAND_ERRORS],
      handler: async ({ params, principal }, _req, res) => {
        assertMayControl(principal, params.uuid, 'cover');
        res.json(await send(params.uuid, params.channel, action));
      },
    });
  }

  api.route({
    method: 'put',
    path: '/devices/{uuid}/cover/{channel}/position',
    summary: 'Move a cover to a position, 0 closed … 100 open (positions in between need a cover that takes them)',
    access: 'devices:control',
    tags,
    params: FamilyChannelParamsSchema,
    body: CoverPositionBodySchema,
    responses: { 200: { description: 'The device acknowledged; pushes tell where it ends up', schema: CoverResultSchema } },
    errors: [...COMMAND_ERRORS, 'VALIDATION_FAILED'],
    handler: async ({ params, body, principal }, _req, res) => {
      assertMayControl(principal, params.uuid, 'cover');
      res.json(await send(params.uuid, params.channel, { position: body.position }));
    },
  });
}
