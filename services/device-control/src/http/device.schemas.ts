import { z } from '@homeops/common';
import type { Capability, FamilyDeviceFlags } from '../domain/device-cloud.js';

/** A non-negative integer in a path. */
export const nonNegativeIntText = z
  .string()
  .regex(/^\d{1,6}$/, 'must be a non-negative integer')
  .transform(Number);

/** `:uuid` of the device routes. */
export const UuidParamsSchema = z.object({
  uuid: z.string().min(1).max(128).openapi({ description: 'Device uuid as listed by GET /devices' }),
});

/** One channel of a device with its state. */
export const ChannelSchema = z
  .object({
    channel: z.number().int(),
    name: z.string(),
    on: z.boolean().nullable().openapi({ description: 'null while the state is unknown' }),
  })
  .openapi('Channel');

/** What the registered device families make of a device in GET /devices. */
export interface DeviceSchemaParts {
  /** Their capabilities, in their order. */
  capabilities: readonly Capability[];
  /** What each family with a note says of its capability, in their order. */
  notes: readonly string[];
  /** The flag a device needs to be controllable, if a family names one: shown on every device, after commandReady. */
  controlFlag: keyof FamilyDeviceFlags | undefined;
  /** The families' own fields (after the capabilities). */
  familyFields: z.ZodRawShape;
}

/**
 * A device as GET /devices lists it: the spec fields first, then channels and diagnostics. The capabilities are those
 * of the registered families, in their order; a family's own fields follow them.
 */
export function deviceSchema({ capabilities, notes, controlFlag, familyFields }: DeviceSchemaParts) {
  const control = controlFlag === undefined ? '' : ` and ${controlFlag}`;
  return z
    .object({
      uuid: z.string(),
      name: z.string(),
      type: z.string(),
      online: z.boolean(),
      status: z.enum(['online', 'offline', 'upgrading']).openapi({ description: 'upgrading: installing firmware (Meross onlineStatus 3), not online' }),
      controllable: z.boolean().openapi({ description: `online, command channel connected${control}` }),
      channels: z.array(ChannelSchema),
      commandReady: z.boolean(),
      ...(controlFlag === undefined ? {} : { [controlFlag]: z.boolean() }),
      capabilities: z.array(z.enum(capabilities as [string, ...string[]])).openapi({
        description: ['What the device can do, from its declared abilities (from its type until they are read)', ...notes].join('; '),
      }),
      ...familyFields,
      firmware: z.string().nullable(),
      hardware: z.string().nullable(),
      lastSeenAt: z.string().nullable().openapi({ description: 'Last time the device was seen online (ISO time)' }),
      transport: z.enum(['lan', 'cloud', 'unreachable']).openapi({
        description: 'How the next message to the device travels: straight over the LAN (costs no cloud message), through the cloud, or neither',
      }),
      address: z.string().nullable().openapi({ description: 'The LAN address (host or host:port), from the configuration or the device; null while unknown' }),
      lanProblem: z
        .string()
        .nullable()
        .openapi({ description: 'Why the LAN is not used for this device (wrong key, encryption, no answer); null while it is' }),
    })
    .openapi('Device');
}

/** The families' own fields of a device in GET /devices; each family adds its own (declaration merging). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface FamilyDeviceFields {}

/** The JSON of one device. */
export type DeviceBody = Omit<z.infer<ReturnType<typeof deviceSchema>>, 'capabilities'> & { capabilities: Capability[] } & Partial<FamilyDeviceFields>;

/** Answer of POST /devices/sync. */
export const SyncResultSchema = z
  .object({
    total: z.number().int(),
    added: z.number().int(),
    removed: z.number().int(),
    updated: z.number().int(),
  })
  .openapi('SyncResult');

export type SyncResultBody = z.infer<typeof SyncResultSchema>;

/** `:uuid` and `:channel` of the routes that act on one channel of a device family (0 on a single one). */
export const FamilyChannelParamsSchema = UuidParamsSchema.extend({
  channel: nonNegativeIntText.openapi({ type: 'integer', description: 'The channel (0 on a single one, such as the msg100 or mrs100)' }),
});

/** When a cached reading was taken and how old it is (the family reads answered from a cache). */
export const READING_AGE = {
  at: z.string().openapi({ description: 'When the device was read (ISO time)' }),
  ageSeconds: z.number().int().openapi({ description: 'How old the reading is: readings are cached, not polled' }),
};
