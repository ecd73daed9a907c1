import { createHash } from 'node:crypto';
import type { Api } from '@homeops/common';
import type { FamilyDeviceFlags } from '../domain/device-cloud.js';
import type { DeviceService } from '../domain/device.service.js';
import type { DeviceView } from '../domain/device.js';
import type { DeviceFamily } from '../families/device-family.js';
import { deviceSchema, SyncResultSchema, UuidParamsSchema, type DeviceBody } from './device.schemas.js';

/** What a read of a device family can answer besides 200. */
export const READ_ERRORS = [
  'DEVICE_NOT_FOUND',
  'DEVICE_NOT_CONTROLLABLE',
  'COMMAND_BUDGET_EXHAUSTED',
  'CLOUD_ERROR',
  'CLOUD_UNAVAILABLE',
  'CLOUD_TIMEOUT',
] as const;

export const COMMAND_ERRORS = [
  'DEVICE_NOT_FOUND',
  'DEVICE_NOT_CONTROLLABLE',
  'MALFORMED_JSON',
  'JSON_TOO_DEEP',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'COMMAND_BUDGET_EXHAUSTED',
  'CLOUD_ERROR',
  'CLOUD_UNAVAILABLE',
  'CLOUD_TIMEOUT',
] as const;

function weakEtag(body: Buffer): string {
  return `W/"${body.length.toString(16)}-${createHash('sha1').update(body).digest('base64url')}"`;
}

function toBody(d: DeviceView, families: readonly DeviceFamily[], controlFlag: keyof FamilyDeviceFlags | undefined): DeviceBody {
  return {
    uuid: d.uuid,
    name: d.name,
    type: d.type,
    online: d.online,
    status: d.status,
    controllable: d.controllable,
    channels: d.channels.map((c) => ({ channel: c.channel, name: c.name, on: c.on })),
    commandReady: d.commandReady,
    ...(controlFlag === undefined ? {} : { [controlFlag]: d[controlFlag] ?? false }),
    capabilities: [...d.capabilities],
    ...Object.assign({}, ...families.map((f) => f.deviceFields?.of(d))),
    firmware: d.firmware ?? null,
    hardware: d.hardware ?? null,
    lastSeenAt: d.lastSeenAt,
    transport: d.link.transport,
    address: d.link.address,
    lanProblem: d.link.lanProblem,
  };
}

/** GET /devices, GET /devices/:uuid and sync; `families`: the registered device families (src/families). */
export function registerDeviceRoutes(api: Api, devices: DeviceService, families: readonly DeviceFamily[]): void {
  const controlFlag = families.find((f) => f.domain.controlFlag !== undefined)?.domain.controlFlag;
  const DeviceSchema = deviceSchema({
    capabilities: families.map((f) => f.capability),
    notes: families.flatMap((f) => f.note ?? []),
    controlFlag,
    familyFields: Object.assign({}, ...families.map((f) => f.deviceFields?.shape)),
  });
  // The list is polled far more often than it changes: serialize it (and its ETag) once per change.
  let listCache: { revision: number; body: Buffer; etag: string } | undefined;
  api.route({
    method: 'get',
    path: '/devices',
    summary: 'Every discovered device, offline and non-controllable ones included',
    access: 'devices:read',
    tags: ['devices'],
    responses: { 200: { description: 'The known devices', schema: DeviceSchema.array() } },
    handler: (_input, _req, res) => {
      if (listCache?.revision !== devices.revision) {
        const body = Buffer.from(JSON.stringify(devices.listDevices().map((d) => toBody(d, families, controlFlag))));
        listCache = { revision: devices.revision, body, etag: weakEtag(body) };
      }
      res.set({ 'Content-Type': 'application/json; charset=utf-8', ETag: listCache.etag }).send(listCache.body);
    },
  });

  api.route({
    method: 'post',
    path: '/devices/sync',
    // Admin only: a sync lists the whole account and spends the budget every token shares (a one-plug token spent the
    // burst window with 13 of them). Concurrent calls share one run; another within the minimum gap is refused.
    summary: 'Synchronize the device list with the cloud now (one at a time, at least CLOUD_SYNC_MIN_GAP_SECONDS apart)',
    access: 'admin',
    tags: ['devices'],
    responses: { 200: { description: 'What the sync changed', schema: SyncResultSchema } },
    errors: ['CLOUD_ERROR', 'CLOUD_UNAVAILABLE', 'CLOUD_TIMEOUT', 'COMMAND_BUDGET_EXHAUSTED', 'SYNC_TOO_SOON'],
    handler: async (_input, _req, res) => {
      res.json(await devices.requestSync());
    },
  });

  api.route({
    method: 'get',
    path: '/devices/{uuid}',
    summary: 'One device',
    access: 'devices:read',
    tags: ['devices'],
    params: UuidParamsSchema,
    responses: { 200: { description: 'The device', schema: DeviceSchema } },
    errors: ['DEVICE_NOT_FOUND'],
    handler: ({ params }, _req, res) => {
      res.json(toBody(devices.getDevice(params.uuid), families, controlFlag));
    },
  });
}
