import { randomBytes } from 'node:crypto';
import { EmulatedDevice, type EmulatedDeviceSpec } from './emulated-device.js';
import { EmulatorApi, type EmulatedAccount } from './emulator-api.js';
import { EmulatorBroker } from './emulator-broker.js';
import type { TestPki } from './pki.js';

export type { EmulatedAccount } from './emulator-api.js';
export type { EmulatedDeviceSpec } from './emulated-device.js';

/** A fresh account with secrets distinctive enough to be searched for in captured output. */
export function createAccount(overrides: Partial<EmulatedAccount> = {}): EmulatedAccount {
  return {
    email: 'owner@example.test',
    password: `pw-${randomBytes(9).toString('hex')}`,
    userId: String(100_000 + Math.floor(Math.random() * 800_000)),
    key: `key${randomBytes(12).toString('hex')}`,
    ...overrides,
  };
}

/** A plug, a four-outlet strip, an old Toggle-only plug and a hub: the shapes the adapter must handle. */
export function standardDevices(): EmulatedDeviceSpec[] {
  return [
    { uuid: 'plug0000000000000000000000000001', name: 'Desk lamp', type: 'mss310' },
    { uuid: 'strip000000000000000000000000002', name: 'Power strip', type: 'mss425f', outlets: ['Monitor', 'Printer', 'Router', 'USB'] },
    { uuid: 'oldplug0000000000000000000000003', name: 'Old plug', type: 'mss110', protocol: 'toggle' },
    { uuid: 'hub00000000000000000000000000004', name: 'Hub', type: 'msh300', protocol: 'none' },
  ];
}

/**
 * A Meross cloud for tests on one loopback address (127.0.0.x): HTTPS API on a free port and MQTTS on 2001,
 * which meross-cloud hard-codes, so every emulator takes its own address.
 */
export class MerossEmulator {
  private constructor(
    readonly devices: Map<string, EmulatedDevice>,
    readonly host: string,
    readonly account: EmulatedAccount,
    readonly api: EmulatorApi,
    readonly broker: EmulatorBroker,
  ) {}

  static async start(options: { pki: TestPki; account: EmulatedAccount; devices: EmulatedDeviceSpec[] }): Promise<MerossEmulator> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const host = `127.0.0.${2 + Math.floor(Math.random() * 250)}`;
      const tls = options.pki.issue([host]);
      const devices = new Map(options.devices.map((spec) => [spec.uuid, new EmulatedDevice(spec)]));
      const broker = new EmulatorBroker(host, tls, options.account, devices);
      try {
        await broker.listen();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
        throw err;
      }
      const api = new EmulatorApi(options.account, () => [...devices.values()], host);
      await api.listen(tls);
      return new MerossEmulator(devices, host, options.account, api, broker);
    }
    throw new Error('no free loopback address with port 2001');
  }

  get apiUrl(): string {
    return this.api.url;
  }

  device(uuid: string): EmulatedDevice {
    const device = this.devices.get(uuid);
    if (!device) throw new Error(`emulator has no device ${uuid}`);
    return device;
  }

  /** Someone pressed the device's button: the channel flips and the cloud pushes the new state. */
  pressButton(uuid: string, channel: number): void {
    const device = this.device(uuid);
    device.set(channel, !device.isOn(channel));
    if (device.protocol === 'toggle') {
      this.broker.push(uuid, 'Appliance.Control.Toggle', { toggle: { onoff: device.isOn(0) ? 1 : 0 } });
      return;
    }
    const changed = channel === 0 ? device.channelNumbers() : [channel];
    const togglex = changed.map((c) => ({ channel: c, onoff: device.isOn(c) ? 1 : 0, lmTime: Math.floor(Date.now() / 1000) }));
    this.broker.push(uuid, 'Appliance.Control.ToggleX', { togglex });
  }

  /** The device loses (or regains) its connection; the cloud pushes Appliance.System.Online. */
  setOnline(uuid: string, online: boolean): void {
    this.device(uuid).online = online;
    this.broker.push(uuid, 'Appliance.System.Online', { online: { status: online ? 1 : 2 } });
  }

  addDevice(spec: EmulatedDeviceSpec): void {
    this.devices.set(spec.uuid, new EmulatedDevice(spec));
  }

  removeDevice(uuid: string): void {
    this.devices.delete(uuid);
  }

  /** Requests the devices received with a given namespace (and method). */
  requests(namespace: string, method?: string) {
    return this.broker.received.filter((r) => r.namespace === namespace && (method === undefined || r.method === method));
  }

  async restartBroker(downMs: number): Promise<void> {
    await this.broker.close();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.broker.listen();
  }

  async stop(): Promise<void> {
    await Promise.all([this.broker.close(), this.api.close()]);
  }
}
