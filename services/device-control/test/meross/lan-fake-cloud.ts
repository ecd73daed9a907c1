import { LanCallFailed, type CloudDevice, type DeviceLink } from '../../src/domain/device-cloud.js';
import { type GarageDoorReading } from '../../src/families/garage-door/domain/garage-door.types.js';
import { FakeDeviceCloud } from '../fakes/fake-device-cloud.js';

/** A link over the LAN at `address`, pushes arriving. */
export function lanLink(address: string, overrides: Partial<DeviceLink> = {}): DeviceLink {
  return { transport: 'lan', address, addressSource: 'learned', pushes: true, lanProblem: null, ...overrides };
}

/**
 * The fake cloud with a LAN transport, as the Meross adapter behaves towards the service: a device whose link says
 * `lan` is answered "over the LAN" (announced as `lan`, never reaching the fake's cloud methods); an address that stops
 * answering moves the device to the cloud (or to unreachable while the session is down) and fails with LanCallFailed.
 */
export class LanFakeCloud extends FakeDeviceCloud {
  readonly lanControl = true;
  /** Every LAN request: which device, what. */
  readonly lanCalls: Array<{ uuid: string; what: string }> = [];
  readonly refreshes: Array<{ uuid: string; lanOnly: boolean }> = [];
  /** Devices read through the cloud to find their address. */
  readonly discoveries: string[] = [];
  /** The list refresh(…, false) reads through the cloud gives this device this address (a DHCP move). */
  readonly movedTo = new Map<string, string>();
  stored: CloudDevice[] | null = null;
  private readonly silent = new Set<string>();
  // The base constructor adds devices before this class's fields exist: a declared field, filled on first use.
  declare private devicesByUuid: Map<string, CloudDevice> | undefined;

  override addDevice(device: CloudDevice, states: boolean[] = []): void {
    this.described.set(device.uuid, device);
    super.addDevice(device, states);
  }

  private get described(): Map<string, CloudDevice> {
    return (this.devicesByUuid ??= new Map());
  }

  /** How the device is reached now, as the service was last told. */
  linkOf(uuid: string): DeviceLink | undefined {
    return this.described.get(uuid)?.link;
  }

  /** The device's LAN address stops answering (or answers again). */
  silence(uuid: string, silent = true): void {
    if (silent) this.silent.add(uuid);
    else this.silent.delete(uuid);
  }

  /** Changes the device's link and tells the service, as the adapter does. */
  relink(uuid: string, change: Partial<DeviceLink>): void {
    const device = this.described.get(uuid)!;
    const cloudOnly: DeviceLink = { transport: 'cloud', address: null, addressSource: null, pushes: true, lanProblem: null };
    device.link = { ...(device.link ?? cloudOnly), ...change };
    device.commandReady = device.link.transport !== 'unreachable';
    this.emit({ type: 'device', device: { ...device, link: { ...device.link }, channels: device.channels.map((c) => ({ ...c })) } });
  }

  override async setChannel(uuid: string, channel: number, on: boolean): Promise<void> {
    if (!this.overLan(uuid, 'setChannel')) return super.setChannel(uuid, channel, on);
    this.setState(uuid, channel, on);
  }

  override async readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>> {
    if (!this.overLan(uuid, 'readChannels')) return super.readChannels(uuid);
    return this.statesOf(uuid);
  }

  override async setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading> {
    if (!this.overLan(uuid, 'setGarageDoor')) return super.setGarageDoor(uuid, channel, open);
    return { channel, state: open ? 'opening' : 'closing' };
  }

  async refresh(uuid: string, lanOnly: boolean): Promise<void> {
    if (!lanOnly && !this.described.get(uuid)?.link?.address) {
      // Discovery: System.All through the cloud for a device whose address nobody told yet.
      this.discoveries.push(uuid);
      this.emit({ type: 'sent', via: 'mqtt', what: 'Appliance.System.All' });
      return;
    }
    this.refreshes.push({ uuid, lanOnly });
    if (!lanOnly && this.described.get(uuid)?.link?.transport !== 'lan') {
      // Through the cloud: System.All tells the device's current address.
      this.emit({ type: 'sent', via: 'mqtt', what: 'Appliance.System.All' });
      const moved = this.movedTo.get(uuid);
      if (moved) this.relink(uuid, { transport: 'lan', address: moved, lanProblem: null });
    } else if (!this.overLan(uuid, 'refresh')) {
      throw new Error(`refresh(${uuid}) over the LAN for a device without a LAN link`);
    }
    for (const { channel, on } of this.statesOf(uuid)) this.emit({ type: 'channel', uuid, channel, on, source: 'push' });
  }

  async storedDevices(): Promise<CloudDevice[] | null> {
    return this.stored;
  }

  private statesOf(uuid: string): Array<{ channel: number; on: boolean }> {
    return this.described.get(uuid)!.channels.map(({ channel }) => ({ channel, on: this.stateOf(uuid, channel) ?? false }));
  }

  private overLan(uuid: string, what: string): boolean {
    const link = this.described.get(uuid)?.link;
    if (link?.transport !== 'lan' && !(what === 'refresh' && link?.address)) return false;
    this.lanCalls.push({ uuid, what });
    this.emit({ type: 'sent', via: 'lan', what });
    if (!this.silent.has(uuid)) {
      if (link?.transport !== 'lan') this.relink(uuid, { transport: 'lan', lanProblem: null });
      return true;
    }
    const cloudUp = this.status().state === 'connected';
    this.relink(uuid, { transport: cloudUp ? 'cloud' : 'unreachable', pushes: cloudUp, lanProblem: 'no answer' });
    throw new LanCallFailed(uuid, 'no answer');
  }
}
