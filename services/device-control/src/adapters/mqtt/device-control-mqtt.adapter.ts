import { AppError, isAppError, type Clock, type Logger, type Timer } from '@homeops/common/core';
import type { MqttBridge } from '@homeops/common/mqtt';
import type { CloudStatus } from '../../domain/device-cloud.js';
import type { DeviceEvent } from '../../domain/device-events.js';
import type { DeviceView } from '../../domain/device.js';
import type { DeviceService } from '../../domain/device.service.js';
import { deviceOf, deviceTopics, serviceDevice, serviceTopics, type DeviceTopics } from './device-entities.js';

/** What the adapter uses of the bridge. */
export type DeviceControlBridge = Pick<MqttBridge, 'subscribe' | 'setDevices' | 'publishState' | 'publishEvent' | 'deviceId'>;

/** What the adapter uses of the domain: the operations the HTTP routes call, and the same events /events streams. */
export type DeviceOperations = Pick<DeviceService, 'listDevices' | 'getDevice' | 'setChannel' | 'onEvent' | 'health'>;

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
}

/** Commands handled at once; past it a command is refused (SERVER_BUSY) instead of piling up. */
const MAX_COMMANDS_AT_ONCE = 32;

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
  private unsubscribe: (() => void) | undefined;
  private timer: Timer | undefined;

  constructor(private readonly options: DeviceControlMqttOptions) {
    this.serviceId = options.bridge.deviceId('service');
  }

  /** Publishes the devices and their states, and listens to commands and domain events. */
  start(): void {
    const { bridge, baseTopic, devices } = this.options;
    bridge.subscribe(`${baseTopic}/devices/+/channels/+/set`, (topic, payload) => this.command(topic, payload));
    this.unsubscribe = devices.onEvent((event) => this.onEvent(event));
    this.publishDevices();
    this.publishService();
    this.armServiceTimer();
  }

  stop(): void {
    this.unsubscribe?.();
    this.timer?.cancel();
    this.timer = undefined;
  }

  private armServiceTimer(): void {
    this.timer = this.options.clock.setTimer(() => {
      this.publishService();
      this.armServiceTimer();
    }, this.options.serviceIntervalMs ?? 30_000);
  }

  private onEvent(event: DeviceEvent): void {
    const { bridge } = this.options;
    switch (event.type) {
      case 'channel': {
        const topics = deviceTopics(this.options.baseTopic, event.uuid);
        bridge.publishState(topics.channelState(event.channel), event.on ? 'ON' : 'OFF');
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
      case 'session':
      case 'garageDoor':
      case 'cover':
      case 'light':
      case 'power':
      case 'energy':
      case 'hub':
        break;
    }
    this.publishService();
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
      ...found.map(({ device, topics }) => deviceOf(device, bridge.deviceId(device.uuid), this.serviceId, topics)),
    ]);
    for (const { device, topics } of found) this.publishStates(device, topics);
  }

  private publishStates(device: DeviceView, topics: DeviceTopics): void {
    const { bridge } = this.options;
    bridge.publishState(topics.availability, device.status === 'online' ? 'online' : 'offline');
    bridge.publishState(topics.transport, device.link.transport);
    if (!device.capabilities.includes('switch')) return;
    for (const { channel, on } of device.channels) if (on !== null) bridge.publishState(topics.channelState(channel), on ? 'ON' : 'OFF');
  }

  private publishService(): void {
    const { bridge, baseTopic, devices, cloudStatus } = this.options;
    const topics = serviceTopics(baseTopic);
    const health = devices.health();
    for (const window of health.budget.windows)
      bridge.publishState(window.window === 'hour' ? topics.budgetHour : topics.budgetBurst, String(window.remaining));
    const state = cloudStatus().state;
    bridge.publishState(topics.session, state);
    bridge.publishState(topics.lockedOut, state === 'locked-out' ? 'ON' : 'OFF');
    bridge.publishState(topics.lan, String(health.lan.lan));
  }

  /** A switch command: ON/OFF through DeviceService.setChannel; a refusal republishes the true state and the error. */
  private async command(topic: string, payload: Buffer): Promise<void> {
    const rest = topic.slice(this.options.baseTopic.length + '/devices/'.length).split('/');
    const target = this.known.get(`${this.options.baseTopic}/devices/${rest[0] ?? ''}/availability`);
    const channel = Number(rest[2]);
    if (!target || !Number.isInteger(channel)) return;
    if (this.commands >= MAX_COMMANDS_AT_ONCE) return this.refuse(target, channel, topic, new AppError('SERVER_BUSY'));
    this.commands++;
    try {
      const text = payload.toString('utf8').trim().toUpperCase();
      if (text !== 'ON' && text !== 'OFF')
        throw new AppError('VALIDATION_FAILED', 'A switch command must be ON or OFF', { details: [{ path: 'payload', message: 'must be ON or OFF' }] });
      const result = await this.options.devices.setChannel(target.uuid, channel, text === 'ON');
      this.options.bridge.publishState(target.channelState(channel), result.on ? 'ON' : 'OFF');
    } catch (err) {
      this.refuse(target, channel, topic, err);
    } finally {
      this.commands--;
      // A command spends the budget or was refused by it: what is left changed, or matters now.
      this.publishService();
    }
  }

  private refuse(target: DeviceTopics & { uuid: string }, channel: number, topic: string, err: unknown): void {
    const { bridge, devices, logger, clock } = this.options;
    const error = isAppError(err) ? err : new AppError('INTERNAL', undefined, { cause: err });
    logger.warn({ code: error.code, topic, err: isAppError(err) ? undefined : err }, `mqtt: ${topic} refused: ${error.message}`);
    // Home Assistant shows the switch as commanded until told otherwise: tell it what the channel really is.
    const on = trueStateOf(devices, target.uuid, channel);
    if (on !== null) bridge.publishState(target.channelState(channel), on ? 'ON' : 'OFF');
    const body = {
      code: error.code,
      error: error.message,
      ...(error.details ? { details: error.details } : {}),
      topic,
      at: new Date(clock.now()).toISOString(),
    };
    bridge.publishEvent(target.error, JSON.stringify(body));
  }
}

function trueStateOf(devices: DeviceOperations, uuid: string, channel: number): boolean | null {
  try {
    return devices.getDevice(uuid).channels.find((c) => c.channel === channel)?.on ?? null;
  } catch {
    return null;
  }
}
