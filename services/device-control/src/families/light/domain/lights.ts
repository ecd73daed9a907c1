import { AppError } from '@homeops/common/core';
import type { LightChange, LightColorMode, LightFeatures, LightReading } from './light.types.js';
import type { DomainFamily } from '../../../domain/device-family.js';
import type { CloudEvent } from '../../../domain/device-cloud.js';
import { DeviceActions } from '../../../domain/device-actions.js';
import { assertChannelOf } from '../../../domain/device-rules.js';

/** A light as the service knows it, with what it can do and what it shows (null until a change or the device tells). */
export interface LightView extends LightReading {
  mode: LightColorMode | null;
  at: string | null;
}

/** What a light change did. */
export interface LightResult {
  device: string;
  channel: number;
  applied: LightChange;
}

const FEATURE_OF: Record<keyof LightChange, keyof LightFeatures> = { brightness: 'brightness', temperature: 'temperature', rgb: 'rgb' };
const FEATURE_TEXT: Record<keyof LightFeatures, string> = { brightness: 'brightness', temperature: 'colour temperature', rgb: 'colour (RGB)' };

/** Lights (msl120/msl320/msl430): brightness, colour temperature and colour where the light has them. */
export class Lights extends DeviceActions {
  protected readonly capability = 'light' as const;
  protected readonly actionText = 'set a light';
  private readonly states = new Map<string, Map<number, LightView>>();

  /**
   * What the light told (a push or our read): fields it did not send stay as they were. A push for a light not read
   * yet waits for that read: it does not say what the light supports, and a guess would refuse what it has.
   */
  apply(uuid: string, reading: Partial<LightReading> & { channel: number }, source: 'command' | 'push' | 'read'): void {
    const device = this.deps.registry.get(uuid);
    if (!device) return;
    if (source !== 'read' && !reading.supports && !this.states.get(uuid)?.has(reading.channel)) return;
    const lights = this.states.get(uuid) ?? new Map<number, LightView>();
    this.states.set(uuid, lights);
    const before = lights.get(reading.channel);
    const now: LightView = {
      channel: reading.channel,
      brightness: reading.brightness !== undefined ? reading.brightness : (before?.brightness ?? null),
      temperature: reading.temperature !== undefined ? reading.temperature : (before?.temperature ?? null),
      rgb: reading.rgb !== undefined ? reading.rgb : (before?.rgb ?? null),
      supports: reading.supports ?? before?.supports ?? { brightness: false, temperature: false, rgb: false },
      mode: reading.mode ?? modeChangedBy(reading) ?? before?.mode ?? null,
      at: this.nowIso(),
    };
    lights.set(reading.channel, now);
    const { at: _at, ...light } = now;
    this.deps.publish({ type: 'light', uuid, name: device.name, ...light, source });
  }

  onCloudEvent(event: CloudEvent): void {
    if (event.type !== 'light') return;
    const { type: _type, uuid, source, ...reading } = event;
    this.apply(uuid, reading, source);
  }

  forget(uuid: string): void {
    this.states.delete(uuid);
  }

  /** The light's settings and features; read from it when unknown (System.All, and the abilities while the backend lacks them). */
  async read(uuid: string): Promise<LightView[]> {
    this.deviceWith(uuid);
    if (!this.states.has(uuid)) await this.admitted(uuid, 1 + this.deps.routes.abilitiesReadBefore(uuid), () => this.readNow(uuid));
    return [...(this.states.get(uuid)?.values() ?? [])].map((l) => ({ ...l, supports: { ...l.supports } }));
  }

  /** Changes what the light has; a field it lacks is refused before anything is sent. */
  async set(uuid: string, channel: number, change: LightChange): Promise<LightResult> {
    const device = this.deviceWith(uuid);
    assertChannelOf(device, channel);
    const known = this.states.get(uuid)?.get(channel);
    if (known) assertSupported(uuid, known.supports, change);
    // Settings known from a push or an earlier read do not mean the backend still knows the abilities (new firmware drops them).
    return this.admitted(uuid, (known ? 1 : 2) + this.deps.routes.abilitiesReadBefore(uuid), async (current) => {
      if (!known) {
        await this.readNow(uuid);
        const read = this.states.get(uuid)?.get(channel);
        if (!read) throw new AppError('CLOUD_ERROR', `Light ${uuid} did not report channel ${channel}`);
        assertSupported(uuid, read.supports, change);
      }
      await this.call(`setting light ${uuid}`, () => this.deps.cloud.setLight(uuid, channel, change));
      this.apply(uuid, { channel, ...change }, 'command');
      return { device: current.name, channel, applied: change };
    });
  }

  private async readNow(uuid: string): Promise<void> {
    const readings = await this.call(`reading light ${uuid}`, () => this.deps.cloud.readLight(uuid));
    for (const r of readings) this.apply(uuid, r, 'read');
  }
}

/** Lights, as the device service builds them. */
export const LIGHTS: DomainFamily<Lights> = { capability: 'light', create: (deps) => new Lights(deps) };

/** The mode a change puts the light in: setting a colour shows it, setting a temperature shows that; both or neither tell nothing. */
function modeChangedBy(change: Partial<LightReading>): LightColorMode | undefined {
  const rgb = change.rgb !== undefined && change.rgb !== null;
  const temperature = change.temperature !== undefined && change.temperature !== null;
  if (rgb === temperature) return undefined;
  return rgb ? 'rgb' : 'temperature';
}

function assertSupported(uuid: string, supports: LightFeatures, change: LightChange): void {
  const missing = (Object.keys(change) as Array<keyof LightChange>).filter((field) => change[field] !== undefined && !supports[FEATURE_OF[field]]);
  if (missing.length === 0) return;
  const has = (Object.keys(supports) as Array<keyof LightFeatures>).filter((f) => supports[f]).map((f) => FEATURE_TEXT[f]);
  throw new AppError('DEVICE_NOT_CONTROLLABLE', `Light ${uuid} has no ${missing.map((f) => FEATURE_TEXT[FEATURE_OF[f]]).join(' or ')}`, {
    solution: `Send only what it has: ${has.join(', ') || 'on/off through its channel'}`,
    details: missing.map((field) => ({ path: field, message: `this light has no ${FEATURE_TEXT[FEATURE_OF[field]]}` })),
  });
}
