import type { Api, AppMetrics } from '@homeops/common';
import type { ValveChange } from '../domain/hub.types.js';
import type { DeviceService } from '../../../domain/device.service.js';
import { HUBS } from '../domain/hubs.js';
import { registerHubMetrics } from './hub.metrics.js';
import { assertMayControl } from '../../../http/control-families.js';
import { UuidParamsSchema } from '../../../http/device.schemas.js';
import { HubSchema, SubDeviceParamsSchema, ValveChangeBodySchema, ValveResultSchema } from './hub.schemas.js';
import { COMMAND_ERRORS, READ_ERRORS } from '../../../http/devices.router.js';

const tags = ['hubs'];

/** Hubs (msh300): the valves and sensors behind them, their readings and batteries; valve on/off and target; the sensors' gauges. */
export function registerHubRoutes(api: Api, devices: DeviceService, metrics?: AppMetrics): void {
  if (metrics) registerHubMetrics(metrics, devices);
  api.route({
    method: 'get',
    path: '/devices/{uuid}/hub',
    summary: 'The devices behind a hub with readings and battery; read at most once a minute, cached in between',
    access: 'devices:read',
    tags,
    params: UuidParamsSchema,
    responses: { 200: { description: 'Valves and sensors, and the age of the reading', schema: HubSchema } },
    errors: [...READ_ERRORS],
    handler: async ({ params }, _req, res) => {
      const { reading, at, ageSeconds } = await devices.use(HUBS).read(params.uuid);
      res.json({ uuid: params.uuid, name: devices.getDevice(params.uuid).name, subdevices: reading, at, ageSeconds });
    },
  });

  api.route({
    method: 'put',
    path: '/devices/{uuid}/hub/{id}',
    summary: "Turn a valve behind a hub on or off and/or set its target temperature (°C, within the valve's range)",
    access: 'devices:control',
    tags,
    params: SubDeviceParamsSchema,
    body: ValveChangeBodySchema,
    responses: { 200: { description: 'The hub acknowledged', schema: ValveResultSchema } },
    errors: [...COMMAND_ERRORS, 'VALIDATION_FAILED'],
    handler: async ({ params, body, principal }, _req, res) => {
      assertMayControl(principal, params.uuid, 'hubSensors');
      const change: ValveChange = {};
      if (body.on !== undefined) change.on = body.on;
      if (body.targetTemperature !== undefined) change.targetTemperature = body.targetTemperature;
      res.json({ status: 'success', ...(await devices.use(HUBS).setValve(params.uuid, params.id, change)) });
    },
  });
}
