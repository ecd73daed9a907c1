import { AppError } from '@homeops/common/core';
import type { CoverMotion, CoverReading } from './cover.types.js';
import type { DomainFamily } from '../../../domain/device-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import { actionChannels, DeviceActions } from '../../../domain/device-actions.js';
import { assertChannelOf } from '../../../domain/device-rules.js';
import type { Device } from '../../../domain/device.js';

/** One cover channel as the service knows it. */
export interface CoverView {
  channel: number;
  /** 0 closed … 100 open; null while unknown. */
  position: number | null;
  motion: CoverMotion | null;
  at: string | null;
}

/** What a cover command asks: fully open, fully closed, stop, or a position. */
export type CoverAction = 'open' | 'close' | 'stop' | { position: number };

/** What a cover command did: `sent` is false when the cover already was where it was asked to be. */
export interface CoverResult {
  device: string;
  channel: number;
  action: 'open' | 'close' | 'stop' | 'position';
  target: number | null;
  position: number | null;
  motion: CoverMotion;
  sent: boolean;
}

interface Known {
  position: number | null;
  motion: CoverMotion | null;
  at: string;
}

/**
 * Covers (roller shutters): position and motion from reads and pushes; open, close, stop and position commands. Every
 * call also reserves the abilities read sent before a device's first family call (see DeviceActions).
 */
export class Covers extends DeviceActions {
  protected readonly capability = 'cover' as const;
  protected readonly actionText = 'move a cover';
  private readonly states = new Map<string, Map<number, Known>>();

  /** What the device told: either field may be missing from a push (position and motion come in separate ones). */
  apply(uuid: string, channel: number, told: { position?: number | null; motion?: CoverMotion }, source: 'command' | 'push' | 'read'): void {
    const device = this.deps.registry.get(uuid);
    if (!device) return;
    const covers = this.states.get(uuid) ?? new Map<number, Known>();
    this.states.set(uuid, covers);
    const before = covers.get(channel);
    const now: Known = {
      position: told.position !== undefined ? told.position : (before?.position ?? null),
      motion: told.motion ?? before?.motion ?? null,
      at: this.nowIso(),
    };
    covers.set(channel, now);
    this.deps.publish({ type: 'cover', uuid, name: device.name, channel, position: now.position, motion: now.motion ?? 'idle', source });
  }

  onCloudEvent(event: CloudEvent): void {
    if (event.type === 'cover') this.apply(event.uuid, event.channel, event, event.source);
  }

  forget(uuid: string): void {
    this.states.delete(uuid);
  }

  /** Every channel's position and motion; read from the cover (two messages, and the abilities) when any position is unknown. */
  async read(uuid: string): Promise<CoverView[]> {
    if (this.coversOf(this.deviceWith(uuid)).some((c) => c.position === null)) await this.admitted(uuid, 3, () => this.readNow(uuid));
    return this.coversOf(this.deviceWith(uuid));
  }

  /** Moves one channel; nothing is sent when it already is at the target and idle. */
  async set(uuid: string, channel: number, action: CoverAction): Promise<CoverResult> {
    const device = this.deviceWith(uuid);
    assertChannelOf(device, channel);
    const target = action === 'open' ? 100 : action === 'close' ? 0 : action === 'stop' ? null : action.position;
    const name = typeof action === 'object' ? 'position' : action;
    if (target !== null && target !== 0 && target !== 100 && !device.coverPositioning) {
      throw new AppError('DEVICE_NOT_CONTROLLABLE', `Cover ${uuid} only runs fully open or closed`, {
        solution: `Use POST /devices/${uuid}/cover/${channel}/open or /close (positions need Meross firmware 6.6.6 or later)`,
        details: [{ path: 'position', message: 'this cover takes 0 or 100 only' }],
      });
    }
    // A position in between needs to know where the cover is, to say which way it goes.
    const known = this.states.get(uuid)?.get(channel);
    const mustRead = target !== null && target !== 0 && target !== 100 && (known?.position ?? null) === null;
    return this.admitted(uuid, mustRead ? 4 : 2, async (current) => {
      if (mustRead) await this.readNow(uuid);
      const before = this.states.get(uuid)?.get(channel);
      if (target !== null && before?.position === target && before.motion === 'idle') {
        return { device: current.name, channel, action: name, target, position: target, motion: 'idle', sent: false };
      }
      await this.call(`moving cover ${uuid}`, () => this.deps.cloud.moveCover(uuid, channel, target ?? 'stop'));
      const motion = directionOf(before?.position ?? null, target);
      this.apply(uuid, channel, { motion }, 'command');
      return { device: current.name, channel, action: name, target, position: before?.position ?? null, motion, sent: true };
    });
  }

  private async readNow(uuid: string): Promise<void> {
    const readings: CoverReading[] = await this.call(`reading cover ${uuid}`, () => this.deps.cloud.readCovers(uuid));
    for (const r of readings) this.apply(uuid, r.channel, { position: r.position, motion: r.motion }, 'read');
  }

  private coversOf(device: Device): CoverView[] {
    const known = this.states.get(device.uuid);
    return actionChannels(device).map((channel) => {
      const k = known?.get(channel);
      return { channel, position: k?.position ?? null, motion: k?.motion ?? null, at: k?.at ?? null };
    });
  }
}

/** Covers, as the device service builds them. */
export const COVERS: DomainFamily<Covers> = {
  capability: 'cover',
  deviceFlags: ['coverPositioning'],
  create: (deps) => new Covers(deps),
  refusal: {
    is: 'a cover (roller shutter)',
    instead: (at) => `Move it with POST ${at}/cover/{channel}/open, /close or /stop, or PUT ${at}/cover/{channel}/position`,
  },
};

function directionOf(position: number | null, target: number | null): CoverMotion {
  if (target === null) return 'idle';
  if (target === 100) return 'opening';
  if (target === 0) return 'closing';
  return position !== null && target < position ? 'closing' : 'opening';
}
