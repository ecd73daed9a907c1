import type { Api } from '@homeops/common';
import type { DeviceService } from '../../../domain/device.service.js';
import { ENERGY } from '../domain/energy.js';
import { UuidParamsSchema } from '../../../http/device.schemas.js';
import { DailyEnergySchema, PowerSchema } from './energy.schemas.js';
import { READ_ERRORS } from '../../../http/devices.router.js';

const tags = ['energy'];

/** Energy plugs: power now and energy per day, cached (each answer says how old it is), read within the budget. */
export function registerEnergyRoutes(api: Api, devices: DeviceService): void {
  api.route({
    method: 'get',
    path: '/devices/{uuid}/energy',
    summary: 'Power (W), voltage (V) and current (A) of an energy plug; read at most every 10 s, cached in between',
    access: 'devices:read',
    tags,
    params: UuidParamsSchema,
    responses: { 200: { description: 'The reading and its age', schema: PowerSchema } },
    errors: [...READ_ERRORS],
    handler: async ({ params }, _req, res) => {
      const { reading, at, ageSeconds } = await devices.use(ENERGY).readPower(params.uuid);
      res.json({ uuid: params.uuid, name: devices.getDevice(params.uuid).name, ...reading, at, ageSeconds });
    },
  });

  api.route({
    method: 'get',
    path: '/devices/{uuid}/energy/daily',
    summary: "Energy used per day (kWh) by the plug's own calendar, oldest first, with the days read before that it no longer holds; read at most every hour",
    access: 'devices:read',
    tags,
    params: UuidParamsSchema,
    responses: { 200: { description: 'The days and the age of the reading', schema: DailyEnergySchema } },
    errors: [...READ_ERRORS],
    handler: async ({ params }, _req, res) => {
      const { reading, at, ageSeconds } = await devices.use(ENERGY).readDaily(params.uuid);
      res.json({ uuid: params.uuid, name: devices.getDevice(params.uuid).name, days: reading, at, ageSeconds });
    },
  });
}
