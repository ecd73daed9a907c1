import { z } from '@homeops/common';
import type { FamilyHealth } from '../../device-family.js';
import { nonNegativeIntText, UuidParamsSchema } from '../../../http/device.schemas.js';

declare module '../../../http/device.schemas.js' {
  interface FamilyDeviceFields {
    /** Every device (the switches' control flag): whether it can be switched. */
    switchable: boolean;
  }
}

/** What GET /devices says of the `switch` capability. */
export const SWITCH_NOTE = 'only `switch` devices take toggle and channel commands';

/** The switches' part of /health: those online whose command channel is down (a broker outage). */
export const SWITCH_HEALTH: FamilyHealth = {
  counts: { awaitingCommandChannel: z.number().openapi({ description: 'Online switches whose command channel is down' }) },
  problems: ({ awaitingCommandChannel = 0 }) =>
    awaitingCommandChannel > 0 ? [`${awaitingCommandChannel} online switch(es) cannot be reached over their command channel`] : [],
};

/** `:uuid` and `:channel` of PUT /devices/:uuid/channels/:channel. */
export const ChannelParamsSchema = UuidParamsSchema.extend({
  channel: nonNegativeIntText.openapi({ type: 'integer', description: 'Channel index (0 on single-channel plugs)' }),
});

/** Body of POST /devices/:uuid/toggle; the channel defaults to 0. */
export const ToggleBodySchema = z
  .object({
    channel: z.number().int('must be an integer').min(0, 'must not be negative').default(0),
  })
  .openapi('ToggleRequest');

/** Body of PUT /devices/:uuid/channels/:channel. */
export const SetChannelBodySchema = z.object({ on: z.boolean() }).openapi('SetChannelRequest');

/** Success body of toggle and switch (the spec's toggle body plus the new state). */
export const CommandResultSchema = z
  .object({
    status: z.literal('success'),
    device: z.string().openapi({ description: 'Name of the device' }),
    action: z.enum(['toggle', 'on', 'off']),
    channel: z.number().int(),
    on: z.boolean().openapi({ description: 'The state of the channel after the command' }),
  })
  .openapi('CommandResult');

export type CommandResultBody = z.infer<typeof CommandResultSchema>;
