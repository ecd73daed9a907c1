import { slugOf } from '@homeops/common/mqtt';
import type { HubSubDeviceReading } from '../../families/hub/domain/hub.types.js';
import type { LightReading } from '../../families/light/domain/light.types.js';
import type { DeviceEvent } from '../../domain/device-events.js';
import { deviceTopics } from './device-entities.js';
import { hubStatesOf, lightStateOf } from './reading-entities.js';

/** The reading events this class turns into states. */
type ReadingEvent = Extract<DeviceEvent, { type: 'light' | 'power' | 'energy' | 'hub' }>;

/**
 * What lights, energy plugs and hubs last told, as Home Assistant states: a light's JSON state joins its channel's
 * on/off with its reading; a hub's devices and a light's features also shape the discovery.
 */
export class ReadingStates {
  private readonly lights = new Map<string, Map<number, LightReading>>();
  private readonly hubs = new Map<string, HubSubDeviceReading[]>();
  private readonly channelsOn = new Map<string, boolean>();

  constructor(
    private readonly baseTopic: string,
    private readonly state: (topic: string, payload: string) => void,
  ) {}

  lightsOf(uuid: string): Map<number, LightReading> {
    return this.lights.get(uuid) ?? new Map();
  }

  hubOf(uuid: string): HubSubDeviceReading[] {
    return this.hubs.get(uuid) ?? [];
  }

  /** A hub device's id from the slug its topics use. */
  hubIds(uuid: string): (slug: string) => string | undefined {
    return (slug) => this.hubs.get(uuid)?.find((d) => slugOf(d.id) === slug)?.id;
  }

  /** A channel's on/off: part of a light's state. */
  channel(uuid: string, channel: number, on: boolean): void {
    this.channelsOn.set(`${uuid}/${channel}`, on);
    this.publishLight(uuid, channel);
  }

  /** Publishes a reading's states; true when the discovery must be published again (new features or hub devices). */
  apply(event: ReadingEvent): boolean {
    const topics = deviceTopics(this.baseTopic, event.uuid);
    switch (event.type) {
      case 'light': {
        const { type: _type, uuid, name: _name, source: _source, ...reading } = event;
        const lights = this.lights.get(uuid) ?? new Map<number, LightReading>();
        const before = JSON.stringify(lights.get(reading.channel)?.supports);
        lights.set(reading.channel, reading);
        this.lights.set(uuid, lights);
        this.publishLight(uuid, reading.channel);
        return before !== JSON.stringify(reading.supports);
      }
      case 'power':
        this.state(topics.energy('power'), String(event.power));
        this.state(topics.energy('voltage'), String(event.voltage));
        this.state(topics.energy('current'), String(event.current));
        return false;
      case 'energy': {
        const today = event.days.at(-1);
        if (today) this.state(topics.energy('energy'), String(today.kWh));
        return false;
      }
      case 'hub': {
        const shape = (list: HubSubDeviceReading[]) => JSON.stringify(list.map((d) => [d.id, d.kind, d.name, d.minTemperature, d.maxTemperature]));
        const changed = shape(this.hubOf(event.uuid)) !== shape(event.subdevices);
        this.hubs.set(event.uuid, event.subdevices);
        for (const [topic, payload] of hubStatesOf(topics, event.subdevices)) this.state(topic, payload);
        return changed;
      }
    }
  }

  private publishLight(uuid: string, channel: number): void {
    const reading = this.lights.get(uuid)?.get(channel);
    if (!reading) return;
    const on = this.channelsOn.get(`${uuid}/${channel}`) ?? null;
    this.state(deviceTopics(this.baseTopic, uuid).lightState(channel), lightStateOf(on, reading));
  }
}
