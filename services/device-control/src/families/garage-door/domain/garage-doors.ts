import type { GarageDoorState } from './garage-door.types.js';
import type { DomainFamily } from '../../../domain/device-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import { GARAGE_DOOR_WATCHES } from './garage-door.watches.js';
import { actionChannels, DeviceActions } from '../../../domain/device-actions.js';
import { assertChannelOf } from '../../../domain/device-rules.js';
import type { Device } from '../../../domain/device.js';

/** One door as the service knows it: null while unknown, with when it was last heard of. */
export interface GarageDoorView {
  channel: number;
  state: GarageDoorState | null;
  at: string | null;
}

/** What an open or close did: `sent` is false when the door already was (or was going) where it was asked to. */
export interface GarageDoorResult {
  device: string;
  channel: number;
  action: 'open' | 'close';
  state: GarageDoorState;
  sent: boolean;
}

const WHERE_IT_GOES: Record<'open' | 'close', GarageDoorState[]> = { open: ['open', 'opening'], close: ['closed', 'closing'] };

/**
 * Garage door openers: their doors' states from reads, commands and pushes; open and close through the budget and
 * queue. Every call also reserves the abilities read sent before a device's first family call (see DeviceActions).
 */
export class GarageDoors extends DeviceActions {
  protected readonly capability = 'garageDoor' as const;
  protected readonly actionText = 'open or close a garage door';
  private readonly states = new Map<string, Map<number, { state: GarageDoorState; at: string }>>();

  /** A state the device told (command answer, push or read). */
  apply(uuid: string, channel: number, state: GarageDoorState, source: 'command' | 'push' | 'read'): void {
    const device = this.deps.registry.get(uuid);
    if (!device) return;
    const doors = this.states.get(uuid) ?? new Map<number, { state: GarageDoorState; at: string }>();
    this.states.set(uuid, doors);
    doors.set(channel, { state, at: this.nowIso() });
    this.deps.publish({ type: 'garageDoor', uuid, name: device.name, channel, state, source });
  }

  onCloudEvent(event: CloudEvent): void {
    if (event.type === 'garageDoor') this.apply(event.uuid, event.channel, event.state, event.source);
  }

  /** The device went away or lost its command channel: what it did meanwhile is unknown. */
  forget(uuid: string): void {
    this.states.delete(uuid);
  }

  /** Every door's state; read from the opener (one message, and the abilities) when any is unknown. */
  async read(uuid: string): Promise<GarageDoorView[]> {
    if (this.doorsOf(this.deviceWith(uuid)).some((d) => d.state === null)) {
      await this.admitted(uuid, 2, async () => {
        const readings = await this.call(`reading garage door ${uuid}`, () => this.deps.cloud.readGarageDoors(uuid));
        for (const r of readings) this.apply(uuid, r.channel, r.state, 'read');
      });
    }
    return this.doorsOf(this.deviceWith(uuid));
  }

  /** Opens or closes one door; nothing is sent when it already is, or is going, where it was asked to. */
  async set(uuid: string, channel: number, action: 'open' | 'close'): Promise<GarageDoorResult> {
    assertChannelOf(this.deviceWith(uuid), channel);
    return this.admitted(uuid, 2, async (device) => {
      const known = this.states.get(uuid)?.get(channel)?.state;
      if (known && WHERE_IT_GOES[action].includes(known)) return { device: device.name, channel, action, state: known, sent: false };
      const answer = await this.call(`${action === 'open' ? 'opening' : 'closing'} garage door ${uuid}`, () =>
        this.deps.cloud.setGarageDoor(uuid, channel, action === 'open'),
      );
      this.apply(uuid, channel, answer.state, 'command');
      return { device: device.name, channel, action, state: answer.state, sent: true };
    });
  }

  private doorsOf(device: Device): GarageDoorView[] {
    const known = this.states.get(device.uuid);
    return actionChannels(device).map((channel) => ({ channel, state: known?.get(channel)?.state ?? null, at: known?.get(channel)?.at ?? null }));
  }
}

/** Garage door openers, as the device service builds them. */
export const GARAGE_DOORS: DomainFamily<GarageDoors> = {
  capability: 'garageDoor',
  create: (deps) => new GarageDoors(deps),
  watches: GARAGE_DOOR_WATCHES,
  refusal: {
    is: 'a garage door opener',
    instead: (at) => `Open or close it with POST ${at}/garage-door/{channel}/open or /close`,
  },
};
