import type { Api } from '@homeops/common';
import type { LightChange } from '../domain/light.types.js';
import type { DeviceService } from '../../../domain/device.service.js';
import { LIGHTS } from '../domain/lights.js';
import { assertMayControl } from '../../../http/control-families.js';
import { FamilyChannelParamsSchema, UuidParamsSchema } from '../../../http/device.schemas.js';
import { LightChangeBodySchema, LightResultSchema, LightsSchema } from './light.schemas.js';
import { COMMAND_ERRORS, READ_ERRORS } from '../../../http/devices.router.js';

const tags = ['lights'];
const toHex = (rgb: number | null | undefined) => (rgb === null || rgb === undefined ? null : `#${rgb.toString(16).padStart(6, '0')}`);

/** Lights (msl120/msl320/msl430): brightness, colour temperature and colour; on/off through the channel routes. */
export function registerLightRoutes(api: Api, devices: DeviceService): void {
  api.route({
    method: 'get',
    path: '/devices/{uuid}/light',
    summary: "A light's brightness, colour temperature and colour, and which of them it has (read from it when unknown)",
    access: 'devices:read',
    tags,
    params: UuidParamsSchema,
    responses: { 200: { description: 'Each light channel', schema: LightsSchema } },
    errors: [...READ_ERRORS],
    handler: async ({ params }, _req, res) => {
      const lights = await devices.use(LIGHTS).read(params.uuid);
      res.json({ uuid: params.uuid, name: devices.getDevice(params.uuid).name, lights: lights.map((l) => ({ ...l, rgb: toHex(l.rgb) })) });
    },
  });

  api.route({
    method: 'put',
    path: '/devices/{uuid}/light/{channel}',
    summary: 'Set brightness (1–100), colour temperature (1 warm … 100 cold) or colour (#rrggbb), where the light has them',
    access: 'devices:control',
    tags,
    params: FamilyChannelParamsSchema,
    body: LightChangeBodySchema,
    responses: { 200: { description: 'The light acknowledged', schema: LightResultSchema } },
    errors: [...COMMAND_ERRORS, 'VALIDATION_FAILED'],
    handler: async ({ params, body, principal }, _req, res) => {
      assertMayControl(principal, params.uuid, 'light');
      const change: LightChange = {};
      if (body.brightness !== undefined) change.brightness = body.brightness;
      if (body.temperature !== undefined) change.temperature = body.temperature;
      if (body.rgb !== undefined) change.rgb = Number.parseInt(body.rgb.slice(1), 16);
      const result = await devices.use(LIGHTS).set(params.uuid, params.channel, change);
      const applied = { ...result.applied, ...(result.applied.rgb !== undefined ? { rgb: toHex(result.applied.rgb) } : {}) };
      res.json({ status: 'success', device: result.device, channel: result.channel, applied });
    },
  });
}
