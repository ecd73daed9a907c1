import { AppError, isAppError, type Clock, type Logger } from '@homeops/common/core';
import type { MqttBridge } from '@homeops/common/mqtt';
import type { CloudStatus } from '../../domain/device-cloud.js';
import type { DeviceEvent } from '../../domain/device-events.js';
import type { DeviceView } from '../../domain/device.js';
import type { DeviceService } from '../../domain/device.service.js';
import { BudgetedReads } from './budgeted-reads.js';
import { deviceOf, deviceTopics, type DeviceTopics } from './device-entities.js';
import type { MqttCommand, MqttFamily, MqttFamilyEntities } from './mqtt-family.js';
import { serviceDevice, ServiceSensors } from './service-sensors.js';

/** What the adapter uses of the bridge. */
export type DeviceControlBridge = Pick<MqttBridge, 'subscribe' | 'setDevices' | 'publishState' | 'publishStateAgain' | 'publishEvent' | 'deviceId'>;

/** What the adapter uses of the domain: the operations the HTTP routes call, and the same events /events streams. */
export type DeviceOperations = Pick<DeviceService, 'listDevices' | 'onEvent' | 'health' | 'use'>;

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
  /** Devices that push nothing are read this often, within the budget's background share (0: never; their events still show). */
  readIntervalMs: number;
  /** The device families' Home Assistant sides (src/families/adapters.ts), in the order their entities are listed. */
  families: ReadonlyArray<{ mqtt?: MqttFamily }>;
}

/** Commands handled at once; past it a command is refused (SERVER_BUSY) instead of piling up. */
const MAX_COMMANDS_AT_ONCE = 32;
/** The largest command payload read: the longest, a JSON one, is under 200 bytes. */
export const MAX_COMMAND_BYTES = 4096;
/** The largest packet the broker may send device-control: commands, and the discovery configs it watches for its own. */
export const MAX_PACKET_BYTES = 1024 * 1024;

/**
 * Home Assistant's side of device-control: a device per Meross device (the entities of its families, src/families/adapters.ts) and a
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
  /** Devices on the LAN read once (free of the budget) to show a state from the start. */
  private readonly readOnce = new Set<string>();
  /** Each family's entities, with the family's commands. */
  private readonly families: Array<{ entities: MqttFamilyEntities; commands: readonly MqttCommand[] }>;
  private unsubscribe: (() => void) | undefined;
  private readonly service: ServiceSensors;
  private readonly reads: BudgetedReads;

  constructor(private readonly options: DeviceControlMqttOptions) {
    this.serviceId = options.bridge.deviceId('service');
    const context = {
      at: (uuid: string) => deviceTopics(options.baseTopic, uuid).at,
      state: (topic: string, payload: string) => this.state(topic, payload),
      event: (topic: string, payload: string) => options.bridge.publishEvent(topic, payload),
    };
    const parts = options.families.flatMap(({ mqtt }) => (mqtt ? [mqtt] : []));
    this.families = parts.map((family) => ({ entities: family.entities(context), commands: family.commands ?? [] }));
    this.service = new ServiceSensors({ ...options, intervalMs: options.serviceIntervalMs ?? 30_000 });
    const reads = parts.flatMap((family) => (family.budgetedRead ? [family.budgetedRead] : []));
    this.reads = new BudgetedReads({ devices: options.devices, clock: options.clock, logger: options.logger, intervalMs: options.readIntervalMs, reads });
  }

  /** Publishes the devices and their states, and listens to commands and domain events. */
  start(): void {
    const { bridge, baseTopic, devices } = this.options;
    for (const { entities, commands } of this.families)
      for (const command of commands)
        bridge.subscribe(`${baseTopic}/devices/+/${command.suffix}`, (topic, payload) => this.command(entities, command, topic, payload));
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
    const { bridge, baseTopic } = this.options;
    if (event.type === 'online') {
      bridge.publishState(deviceTopics(baseTopic, event.uuid).availability, event.online && !event.upgrading ? 'online' : 'offline');
    } else if (event.type === 'device') {
      bridge.publishState(deviceTopics(baseTopic, event.device.uuid).transport, event.device.link.transport);
      this.publishDevices();
    } else if (event.type === 'device-removed' || event.type === 'sync') {
      this.publishDevices();
    } else if (event.type !== 'session' && event.type !== 'watch') {
      // The families' events: what they last told may shape the discovery (new features, new devices behind it).
      let reshaped = false;
      for (const { entities } of this.families) reshaped = entities.onEvent?.(event) === true || reshaped;
      if (reshaped) this.publishDevices();
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
      ...found.map(({ device, topics }) => {
        const deviceId = bridge.deviceId(device.uuid);
        const components = this.families.map(({ entities }) => entities.components?.(device, deviceId, topics.at) ?? {});
        return deviceOf(device, deviceId, this.serviceId, topics, components);
      }),
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
    for (const { entities } of this.families) entities.publishStates?.(device);
  }

  /**
   * A command through the domain; a refusal publishes the states it touched again, and the error. The broker authorizes
   * it (its users and the ACLs on the command topics), not our tokens: whoever may publish here controls every device.
   */
  private async command(entities: MqttFamilyEntities, command: MqttCommand, topic: string, payload: Buffer): Promise<void> {
    const rest = topic.slice(this.options.baseTopic.length + '/devices/'.length).split('/');
    const target = this.known.get(`${this.options.baseTopic}/devices/${rest[0] ?? ''}/availability`);
    const key = rest[2] ?? '';
    if (!target) return;
    if (payload.length > MAX_COMMAND_BYTES)
      return this.refuse(entities, command, target, key, topic, new AppError('PAYLOAD_TOO_LARGE', `A command may have at most ${MAX_COMMAND_BYTES} bytes`));
    if (this.commands >= MAX_COMMANDS_AT_ONCE) return this.refuse(entities, command, target, key, topic, new AppError('SERVER_BUSY'));
    this.commands++;
    try {
      await command.run(this.options.devices, target.uuid, key, payload.toString('utf8'), entities);
    } catch (err) {
      this.refuse(entities, command, target, key, topic, err);
    } finally {
      this.commands--;
      // A command spends the budget or was refused by it: what is left changed, or matters now.
      this.service.publish();
    }
  }

  private refuse(entities: MqttFamilyEntities, command: MqttCommand, target: DeviceTopics & { uuid: string }, key: string, topic: string, err: unknown): void {
    const { bridge, logger, clock } = this.options;
    const error = isAppError(err) ? err : new AppError('INTERNAL', undefined, { cause: err });
    logger.warn({ code: error.code, topic, err: isAppError(err) ? undefined : err }, `mqtt: ${topic} refused: ${error.message}`);
    // Home Assistant shows the entity as commanded until told otherwise: tell it what the device really is.
    for (const stateTopic of command.states(target.at, target.uuid, key, entities)) {
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

  /** Devices reached over the LAN are read once where their family asks, which costs nothing of the budget; the rest wait for an event. */
  private readFreeStates(device: DeviceView): void {
    if (device.link.transport !== 'lan' || device.status !== 'online' || this.readOnce.has(device.uuid)) return;
    const { devices, logger } = this.options;
    const reads = this.families.flatMap(({ entities }) => entities.readAtStart?.(devices, device) ?? []);
    if (reads.length === 0) return;
    this.readOnce.add(device.uuid);
    // The reads publish their events, which publish the states.
    void Promise.all(reads).catch((err: unknown) => {
      this.readOnce.delete(device.uuid);
      logger.debug({ err, uuid: device.uuid }, 'mqtt: a first state read failed; the state shows with the next event');
    });
  }
}
