import { callCloud } from './cloud-call.js';
import type { Clock } from './clock.js';
import type { DeviceCloud, GarageDoorReading, GarageDoorState } from './device-cloud.js';
import type { DeviceEvent } from './device-events.js';
import type { DeviceQueue } from './device-queue.js';
import type { DeviceRegistry } from './device-registry.js';
import { assertCapable, assertChannelOf, assertKnownDevice, assertReachable } from './device-rules.js';
import type { Device } from './device.js';
import type { MessageBudget } from './message-budget.js';

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

interface GarageDoorsDeps {
  cloud: DeviceCloud;
  registry: DeviceRegistry;
  queue: DeviceQueue;
  budget: MessageBudget;
  clock: Clock;
  commandTimeoutMs: number;
  publish: (event: DeviceEvent) => void;
}

const WHERE_IT_GOES: Record<'open' | 'close', GarageDoorState[]> = { open: ['open', 'opening'], close: ['closed', 'closing'] };

/** Garage door openers: their doors' states from reads, commands and pushes; open and close through the budget and queue. */
export class GarageDoors {
  private readonly states = new Map<string, Map<number, { state: GarageDoorState; at: string }>>();

  constructor(private readonly deps: GarageDoorsDeps) {}

  /** A state the device told (command answer, push or read). */
  apply(uuid: string, channel: number, state: GarageDoorState, source: 'command' | 'push' | 'read'): void {
    const device = this.deps.registry.get(uuid);
    if (!device) return;
    const doors = this.states.get(uuid) ?? new Map<number, { state: GarageDoorState; at: string }>();
    this.states.set(uuid, doors);
    doors.set(channel, { state, at: new Date(this.deps.clock.now()).toISOString() });
    this.deps.publish({ type: 'garageDoor', uuid, name: device.name, channel, state, source });
  }

  /** The device went away or lost its command channel: what it did meanwhile is unknown. */
  forget(uuid: string): void {
    this.states.delete(uuid);
  }

  /** Every door's state; read from the opener (one message) when any is unknown. */
  async read(uuid: string): Promise<GarageDoorView[]> {
    const device = this.assertOpener(uuid);
    if (this.doorsOf(device).some((d) => d.state === null)) {
      assertReachable(device);
      const reservation = this.deps.budget.assertReserve('caller');
      await this.deps.queue.run(uuid, async () => {
        try {
          const readings = await this.call(`reading garage door ${uuid}`, () => this.deps.cloud.readGarageDoors(uuid));
          for (const r of readings) this.apply(uuid, r.channel, r.state, 'read');
        } finally {
          this.deps.budget.release(reservation);
        }
      });
    }
    return this.doorsOf(this.assertOpener(uuid));
  }

  /** Opens or closes one door; nothing is sent when it already is, or is going, where it was asked to. */
  async set(uuid: string, channel: number, action: 'open' | 'close'): Promise<GarageDoorResult> {
    const device = this.assertOpener(uuid);
    assertChannelOf(device, channel);
    assertReachable(device);
    const reservation = this.deps.budget.assertReserve('caller');
    return this.deps.queue.run(uuid, async () => {
      try {
        const current = this.assertOpener(uuid);
        assertReachable(current);
        const known = this.states.get(uuid)?.get(channel)?.state;
        if (known && WHERE_IT_GOES[action].includes(known)) return { device: current.name, channel, action, state: known, sent: false };
        const answer: GarageDoorReading = await this.call(`${action === 'open' ? 'opening' : 'closing'} garage door ${uuid}`, () =>
          this.deps.cloud.setGarageDoor(uuid, channel, action === 'open'),
        );
        this.apply(uuid, channel, answer.state, 'command');
        return { device: current.name, channel, action, state: answer.state, sent: true };
      } finally {
        this.deps.budget.release(reservation);
      }
    });
  }

  private assertOpener(uuid: string): Device {
    const device = assertKnownDevice(this.deps.registry.get(uuid), uuid);
    assertCapable(device, 'garageDoor', 'open or close a garage door');
    return device;
  }

  private doorsOf(device: Device): GarageDoorView[] {
    const known = this.states.get(device.uuid);
    return doorChannels(device).map((channel) => ({ channel, state: known?.get(channel)?.state ?? null, at: known?.get(channel)?.at ?? null }));
  }

  private call<T>(what: string, work: () => Promise<T>): Promise<T> {
    return callCloud(work, { what, timeoutMs: this.deps.commandTimeoutMs, status: () => this.deps.cloud.status(), now: () => this.deps.clock.now() });
  }
}

/** The doors of an opener: its channels, without the "all" channel 0 of a multi-door one. */
export function doorChannels(device: Device): number[] {
  const channels = device.channels.map((c) => c.channel);
  return channels.length > 1 ? channels.filter((c) => c !== 0) : channels;
}
