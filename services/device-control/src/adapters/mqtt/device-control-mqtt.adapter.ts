import { AppError, isAppError, type Clock, type Logger } from '@homeops/common/core';
import type { MqttBridge } from '@homeops/common/mqtt';
import type { CloudStatus } from '../../domain/device-cloud.js';
import type { DeviceEvent } from '../../domain/device-events.js';
import type { DeviceView } from '../../domain/device.js';
import type { DeviceService } from '../../domain/device.service.js';
import { BudgetedReads } from './budgeted-reads.js';
import { coverStateOf } from './family-entities.js';
import { ReadingStates } from './reading-states.js';
import { MQTT_COMMANDS, type MqttCommand } from './mqtt-commands.js';
import { deviceOf, deviceTopics, type DeviceTopics } from './device-entities.js';
import { serviceDevice, ServiceSensors } from './service-sensors.js';
import { COVERS } from '../../families/cover/domain/covers.js';
import { GARAGE_DOORS } from '../../families/garage-door/domain/garage-doors.js';
import { LIGHTS } from '../../families/light/domain/lights.js';

/** What the adapter uses of the bridge. */
export type DeviceControlBridge = Pick<MqttBridge, 'subscribe' | 'setDevices' | 'publishState' | 'publishStateAgain' | 'publishEvent' | 'deviceId'>;

/** What the adapter uses of the domain: the operations the HTTP routes call, and the same events /events streams. */
export type DeviceOperations = Pick<DeviceService, 'listDevices' | 'onEvent' | 'health' | 'setChannel' | 'use'>;

/** How the adapter is built. */
export interface DeviceControlMqttOptions {
  bridge: DeviceControlBridge;
  baseTopic: string;
  devices: DeviceOperations;
  cloudStatus: () => CloudStatus;
  clock: Clock;
  logger: Logger;
  swVersion: string;
  /** How often the service sensors are published besides on every event (the budget windows slide); default 30 s. */
  serviceIntervalMs?: number;
  /** Energy plugs and hubs are read this often, within the budget's background share (0: never; their events still show). */
  readIntervalMs: number;
}

/** Commands handled at once; past it a command is refused (SERVER_BUSY) instead of piling up. */
const MAX_COMMANDS_AT_ONCE = 32;
/** The largest command payload read: the longest, a light's JSON, is under 200 bytes. */
export const MAX_COMMAND_BYTES = 4096;
/** The largest packet the broker may send device-control: commands, and the discovery configs it watches for its own. */
export const MAX_PACKET_BYTES = 1024 * 1024;

/**
 * Home Assistant's side of device-control: a device per Meross device (a switch and a button event per channel) and a
 * service device (budget left, cloud session, lock-out, LAN reach). Commands act through DeviceService, so they meet
 * the same budget and refusals as HTTP; a refused command publishes the true state again and the error.
 */
export class DeviceControlMqttAdapter {
  private readonly serviceId: string;
  /** The uuid behind each device's topic slug, from the last discovery. */
  private readonly known = new Map<string, DeviceTopics & { uuid: string }>();
  private commands = 0;
  /** The last payload of each state topic: what a refused command publishes again. */
  private readonly lastStates = new Map<string, string>();
  /** Devices on the LAN whose doors and covers were read once (free of the budget) to show a state from the start. */
  private readonly readOnce = new Set<string>();
  private readonly readings: ReadingStates;
  private unsubscribe: (() => void) | undefined;
  private readonly service: ServiceSensors;
  private readonly reads: BudgetedReads;

  constructor(private readonly options: DeviceControlMqttOptions) {
    this.serviceId = options.bridge.deviceId('service');
    this.readings = new ReadingStates(options.baseTopic, (topic, payload) => this.state(topic, payload));
    this.service = new ServiceSensors({ ...options, intervalMs: options.serviceIntervalMs ?? 30_000 });
    this.reads = new BudgetedReads({ devices: options.devices, clock: options.clock, logger: options.logger, intervalMs: options.readIntervalMs });
  }

  /** Publishes the devices and their states, and listens to commands and domain events. */
  start(): void {
    const { bridge, baseTopic, devices } = this.options;
    for (const command of MQTT_COMMANDS)
      bridge.subscribe(`${baseTopic}/devices/+/${command.suffix}`, (topic, payload) => this.command(command, topic, payload));
    this.unsubscribe = devices.onEvent((event) => this.onEvent(event));
    this.publishDevices();
    this.service.start();
    this.reads.start();
  }

  stop(): void {
    this.unsubscribe?.();
    this.service.stop();
    this.reads.stop();
  }

  private onEvent(event: DeviceEvent): void {
    const { bridge } = this.options;
    switch (event.type) {
      case 'channel': {
        const topics = deviceTopics(this.options.baseTopic, event.uuid);
        this.state(topics.channelState(event.channel), event.on ? 'ON' : 'OFF');
        this.readings.channel(event.uuid, event.channel, event.on);
        if (event.source === 'push') bridge.publishEvent(topics.channelPress(event.channel), JSON.stringify({ event_type: 'press', on: event.on }));
        break;
      }
      case 'online':
        bridge.publishState(deviceTopics(this.options.baseTopic, event.uuid).availability, event.online && !event.upgrading ? 'online' : 'offline');
        break;
      case 'device': {
        const topics = deviceTopics(this.options.baseTopic, event.device.uuid);
        bridge.publishState(topics.transport, event.device.link.transport);
        this.publishDevices();
        break;
      }
      case 'device-removed':
      case 'sync':
        this.publishDevices();
        break;
      case 'garageDoor':
        this.state(deviceTopics(this.options.baseTopic, event.uuid).doorState(event.channel), event.state);
        break;
      case 'cover': {
        const topics = deviceTopics(this.options.baseTopic, event.uuid);
        const state = coverStateOf(event.position, event.motion);
        if (state !== undefined) this.state(topics.coverState(event.channel), state);
        if (event.position !== null) this.state(topics.coverPosition(event.channel), String(event.position));
        break;
      }
      case 'session':
      case 'watch':
        break;
      case 'light':
      case 'power':
      case 'energy':
      case 'hub':
        // A light's features and a hub's devices shape the discovery.
        if (this.readings.apply(event)) this.publishDevices();
        break;
    }
    this.service.publish();
  }

  /** The full set of devices (new, renamed and removed ones settle in the bridge), their presence and known states. */
  private publishDevices(): void {
    const { bridge, baseTopic, devices } = this.options;
    let list: DeviceView[];
    try {
      list = devices.listDevices();
    } catch {
      // Not loaded from the cloud yet: the first sync's event publishes them.
      bridge.setDevices([serviceDevice(this.serviceId, baseTopic, this.options.swVersion)]);
      return;
    }
    this.known.clear();
    const found = list.map((device) => {
      const topics = deviceTopics(baseTopic, device.uuid);
      this.known.set(topics.availability, { ...topics, uuid: device.uuid });
      return { device, topics };
    });
    bridge.setDevices([
      serviceDevice(this.serviceId, baseTopic, this.options.swVersion),
      ...found.map(({ device, topics }) =>
        deviceOf(device, bridge.deviceId(device.uuid), this.serviceId, topics, {
          lights: this.readings.lightsOf(device.uuid),
          hub: this.readings.hubOf(device.uuid),
        }),
      ),
    ]);
    for (const { device, topics } of found) {
      this.publishStates(device, topics);
      this.readFreeStates(device);
    }
  }

  private publishStates(device: DeviceView, topics: DeviceTopics): void {
    const { bridge } = this.options;
    bridge.publishState(topics.availability, device.status === 'online' ? 'online' : 'offline');
    bridge.publishState(topics.transport, device.link.transport);
    if (!device.capabilities.includes('switch')) return;
    for (const { channel, on } of device.channels) {
      if (on === null) continue;
      this.state(topics.channelState(channel), on ? 'ON' : 'OFF');
      this.readings.channel(device.uuid, channel, on);
    }
  }

  /**
   * A command through the domain; a refusal publishes the states it touched again, and the error. The broker authorizes
   * it (its users and the ACLs on the command topics), not our tokens: whoever may publish here controls every device.
   */
  private async command(command: MqttCommand, topic: string, payload: Buffer): Promise<void> {
    const rest = topic.slice(this.options.baseTopic.length + '/devices/'.length).split('/');
    const target = this.known.get(`${this.options.baseTopic}/devices/${rest[0] ?? ''}/availability`);
    const key = rest[2] ?? '';
    if (!target) return;
    if (payload.length > MAX_COMMAND_BYTES)
      return this.refuse(command, target, key, topic, new AppError('PAYLOAD_TOO_LARGE', `A command may have at most ${MAX_COMMAND_BYTES} bytes`));
    if (this.commands >= MAX_COMMANDS_AT_ONCE) return this.refuse(command, target, key, topic, new AppError('SERVER_BUSY'));
    this.commands++;
    try {
      await command.run(this.options.devices, target.uuid, key, payload.toString('utf8'), this.readings.hubIds(target.uuid));
    } catch (err) {
      this.refuse(command, target, key, topic, err);
    } finally {
      this.commands--;
      // A command spends the budget or was refused by it: what is left changed, or matters now.
      this.service.publish();
    }
  }

  private refuse(command: MqttCommand, target: DeviceTopics & { uuid: string }, key: string, topic: string, err: unknown): void {
    const { bridge, logger, clock } = this.options;
    const error = isAppError(err) ? err : new AppError('INTERNAL', undefined, { cause: err });
    logger.warn({ code: error.code, topic, err: isAppError(err) ? undefined : err }, `mqtt: ${topic} refused: ${error.message}`);
    // Home Assistant shows the entity as commanded until told otherwise: tell it what the device really is.
    for (const stateTopic of command.states(target, key, this.readings.hubIds(target.uuid))) {
      const last = this.lastStates.get(stateTopic);
      if (last !== undefined) bridge.publishStateAgain(stateTopic, last);
    }
    const body = {
      code: error.code,
      error: error.message,
      ...(error.details ? { details: error.details } : {}),
      topic,
      at: new Date(clock.now()).toISOString(),
    };
    bridge.publishEvent(target.error, JSON.stringify(body));
  }

  /** Publishes a state and keeps it for a refusal to publish again. */
  private state(topic: string, payload: string): void {
    this.lastStates.set(topic, payload);
    this.options.bridge.publishState(topic, payload);
  }

  /** Doors and covers reached over the LAN are read once, which costs nothing of the budget; the rest wait for an event. */
  private readFreeStates(device: DeviceView): void {
    if (device.link.transport !== 'lan' || device.status !== 'online' || this.readOnce.has(device.uuid)) return;
    const { devices, logger } = this.options;
    const reads: Array<Promise<unknown>> = [];
    if (device.capabilities.includes('garageDoor')) reads.push(devices.use(GARAGE_DOORS).read(device.uuid));
    if (device.capabilities.includes('cover')) reads.push(devices.use(COVERS).read(device.uuid));
    if (device.capabilities.includes('light')) reads.push(devices.use(LIGHTS).read(device.uuid));
    if (reads.length === 0) return;
    this.readOnce.add(device.uuid);
    // The reads publish their events, which publish the states.
    void Promise.all(reads).catch((err: unknown) => {
      this.readOnce.delete(device.uuid);
      logger.debug({ err, uuid: device.uuid }, 'mqtt: a first state read failed; the state shows with the next event');
    });
  }
}
