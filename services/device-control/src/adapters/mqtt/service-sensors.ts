import type { Clock, Timer } from '@homeops/common/core';
import type { DiscoveryComponent, DiscoveryDevice, MqttBridge } from '@homeops/common/mqtt';
import type { CloudStatus } from '../../domain/device-cloud.js';
import type { DeviceService } from '../../domain/device.service.js';

/** The topics of the service device (budget, session, LAN reach). */
export function serviceTopics(baseTopic: string) {
  const at = `${baseTopic}/service`;
  return { budgetHour: `${at}/budget/hour`, budgetBurst: `${at}/budget/burst`, session: `${at}/session`, lockedOut: `${at}/locked-out`, lan: `${at}/lan` };
}

/** The service itself: what is left of the message budget, the cloud session, a lock-out, the devices the LAN reaches. */
export function serviceDevice(deviceId: string, baseTopic: string, swVersion: string): DiscoveryDevice {
  const topics = serviceTopics(baseTopic);
  const sensor = (key: string, name: string, options: Record<string, unknown>): [string, DiscoveryComponent] => [
    key,
    { platform: 'sensor', uniqueId: `${deviceId}_${key}`, name, options },
  ];
  return {
    id: deviceId,
    name: 'Meross device control',
    manufacturer: 'homeops',
    model: 'device-control',
    swVersion,
    components: Object.fromEntries([
      sensor('budget_hour', 'Cloud messages left this hour', {
        state_topic: topics.budgetHour,
        state_class: 'measurement',
        unit_of_measurement: 'messages',
        icon: 'mdi:message-badge',
      }),
      sensor('budget_burst', 'Cloud messages left this minute', {
        state_topic: topics.budgetBurst,
        state_class: 'measurement',
        unit_of_measurement: 'messages',
        icon: 'mdi:message-flash',
      }),
      sensor('session', 'Cloud session', {
        state_topic: topics.session,
        device_class: 'enum',
        options: ['connecting', 'connected', 'backing-off', 'locked-out', 'needs-mfa', 'failed'],
        entity_category: 'diagnostic',
      }),
      sensor('lan', 'Devices reached over the LAN', {
        state_topic: topics.lan,
        state_class: 'measurement',
        icon: 'mdi:lan-connect',
        entity_category: 'diagnostic',
      }),
      [
        'locked_out',
        {
          platform: 'binary_sensor',
          uniqueId: `${deviceId}_locked_out`,
          name: 'Account locked out',
          options: { state_topic: topics.lockedOut, device_class: 'problem', payload_on: 'ON', payload_off: 'OFF' },
        },
      ],
    ]),
  };
}

/** The service device's sensors: published on every event (the adapter calls `publish`) and every `intervalMs`, as the budget windows slide. */
export class ServiceSensors {
  private timer: Timer | undefined;

  constructor(
    private readonly options: {
      bridge: Pick<MqttBridge, 'publishState'>;
      baseTopic: string;
      devices: Pick<DeviceService, 'health'>;
      cloudStatus: () => CloudStatus;
      clock: Clock;
      intervalMs: number;
    },
  ) {}

  start(): void {
    this.publish();
    this.arm();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Publishes every sensor of the service device now. */
  publish(): void {
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

  private arm(): void {
    this.timer = this.options.clock.setTimer(() => {
      this.publish();
      this.arm();
    }, this.options.intervalMs);
  }
}
