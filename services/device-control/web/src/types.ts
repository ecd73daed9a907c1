// The API's shapes, inferred from the service's own response schemas (types only: no zod in the bundle), and the
// events from the event type the service sends, so a change to what the service answers breaks this dashboard's
// typecheck instead of its users.
import type { HealthEnvelope, z } from '@homeops/common';
import type { DeviceEvent } from '../../src/domain/device-events.js';
import type { WatchView } from '../../src/domain/watches/device-watches.js';
import type { DeviceBody, SyncResultBody } from '../../src/http/device.schemas.js';
import type { CoverResultBody, CoversBody } from '../../src/families/cover/http/cover.schemas.js';
import type { DailyEnergyBody, PowerBody } from '../../src/families/energy/http/energy.schemas.js';
import type { GarageDoorResultBody, GarageDoorsBody } from '../../src/families/garage-door/http/garage-door.schemas.js';
import type { LightsBody } from '../../src/families/light/http/light.schemas.js';
import type { CommandResultBody } from '../../src/families/switch/http/switch.schemas.js';
import type { HealthBody } from '../../src/http/health.schemas.js';
import type { WatchBodySchema } from '../../src/http/watches.schemas.js';

/** GET /devices, one device (the service's Device schema). */
export type Device = DeviceBody;

/** GET /health as anyone gets it: without the key or an admin token (when a key is set) there is nothing more. */
export type HealthSummary = HealthEnvelope;

/** GET /health asked with the key or an admin token, or with no key set. */
export type Health = HealthBody;

/** A channel event of GET /events. */
export type ChannelEvent = Extract<DeviceEvent, { type: 'channel' }>;

/** One door of a garage door opener: what GET /devices/:uuid/garage-door and garageDoor events both tell. */
export type GarageDoor = Pick<GarageDoorsBody['doors'][number], 'channel' | 'state'>;

/** One channel of a cover: what GET /devices/:uuid/cover and cover events both tell. */
export type Cover = Pick<CoversBody['covers'][number], 'channel' | 'position' | 'motion'>;

type LightItem = LightsBody['lights'][number];

/** One light channel (GET /devices/:uuid/light, and light events): #rrggbb from GET, a number in events. */
export type Light = Omit<LightItem, 'at' | 'rgb'> & { rgb: LightItem['rgb'] | Extract<DeviceEvent, { type: 'light' }>['rgb'] };

/** Answer of a channel's on/off (PUT /devices/:uuid/channels/:channel). */
export type ChannelResult = CommandResultBody;

/** Answer of POST /devices/sync. */
export type SyncResult = SyncResultBody;

/** Answer of POST /devices/:uuid/garage-door/:channel/open and /close. */
export type GarageDoorResult = GarageDoorResultBody;

/** Answer of the cover commands. */
export type CoverResult = CoverResultBody;

/** GET /devices/:uuid/energy. */
export type Power = PowerBody;

/** GET /devices/:uuid/energy/daily. */
export type DailyEnergy = DailyEnergyBody;

/** GET /watches, one watch (what the route answers): its condition and whom it notifies, where its episode stands, its cost. */
export type Watch = WatchView;

/** The body of PUT /watches/{name}, as the service's schema takes it (its defaults not yet applied). */
export type WatchBody = z.input<typeof WatchBodySchema>;
