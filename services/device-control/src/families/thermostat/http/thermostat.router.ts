import type { Api } from '@homeops/common';
import type { ThermostatChange } from '../domain/thermostat.types.js';
import type { DeviceService } from '../../../domain/device.service.js';
import { THERMOSTATS } from '../domain/thermostats.js';
import { assertMayControl } from '../../../http/control-families.js';
import { UuidParamsSchema } from '../../../http/device.schemas.js';
import { ThermostatChangeBodySchema, ThermostatParamsSchema, ThermostatResultSchema, ThermostatsSchema } from './thermostat.schemas.js';
import { COMMAND_ERRORS, READ_ERRORS } from '../../../http/devices.router.js';

const tags = ['thermostats'];

/** Thermostats (mts200, mts960): what they report, and on/off, mode and target in one command. */
export function registerThermostatRoutes(api: Api, devices: DeviceService): void {
  api.route({
    method: 'get',
    path: '/devices/{uuid}/thermostat',
    summary: 'Each thermostat channel in °C: on, mode, current and target temperature, heating; kept current by its pushes',
    access: 'devices:read',
    tags,
    params: UuidParamsSchema,
    responses: { 200: { description: 'Each thermostat channel, and when it last told', schema: ThermostatsSchema } },
    errors: [...READ_ERRORS],
    handler: async ({ params }, _req, res) => {
      const { reading, at, ageSeconds } = await devices.use(THERMOSTATS).read(params.uuid);
      res.json({ uuid: params.uuid, name: devices.getDevice(params.uuid).name, thermostats: reading, at, ageSeconds });
    },
  });

  api.route({
    method: 'put',
    path: '/devices/{uuid}/thermostat/{channel}',
    summary: 'Turn a thermostat on or off, pick its mode and/or set its target (°C, steps of 0.5, within its range): one message',
    access: 'devices:control',
    tags,
    params: ThermostatParamsSchema,
    body: ThermostatChangeBodySchema,
    responses: { 200: { description: 'The thermostat acknowledged', schema: ThermostatResultSchema } },
    errors: [...COMMAND_ERRORS, 'VALIDATION_FAILED'],
    handler: async ({ params, body, principal }, _req, res) => {
      assertMayControl(principal, params.uuid, 'thermostat');
      const change: ThermostatChange = {};
      if (body.on !== undefined) change.on = body.on;
      if (body.mode !== undefined) change.mode = body.mode;
      if (body.targetTemperature !== undefined) change.targetTemperature = body.targetTemperature;
      res.json({ status: 'success', ...(await devices.use(THERMOSTATS).set(params.uuid, params.channel, change)) });
    },
  });
}
