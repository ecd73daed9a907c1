import type { CloudDevice, FamilyDeviceFlags } from './device-cloud.js';
import type { DeviceEvent } from './device-events.js';
import type { DeviceLink } from './device-cloud.js';
import { copyDevice, isControllable, linkOf, presenceOf, toDeviceRecord, type ChannelState, type Device, type DeviceStatus } from './device.js';

/** What one synchronization changed. */
export interface SyncResult {
  total: number;
  added: number;
  removed: number;
  updated: number;
}

/** How many devices there are, and how many of them can be used. */
export interface DeviceCounts {
  total: number;
  online: number;
  controllable: number;
}

type Emit = (event: DeviceEvent) => void;
type Flag = keyof FamilyDeviceFlags;

function sameDescription(device: Device, cloud: CloudDevice, flags: readonly Flag[]): boolean {
  return (
    device.name === cloud.name &&
    device.type === cloud.type &&
    device.presence === presenceOf(cloud) &&
    device.commandReady === cloud.commandReady &&
    device.capabilities.join() === cloud.capabilities.join() &&
    flags.every((flag) => (device[flag] ?? false) === (cloud[flag] ?? false)) &&
    device.firmware === cloud.firmware &&
    device.hardware === cloud.hardware &&
    sameLink(device.link, linkOf(cloud)) &&
    device.channels.length === cloud.channels.length &&
    device.channels.every((c, i) => c.channel === cloud.channels[i]?.channel && c.name === cloud.channels[i]?.name)
  );
}

function sameLink(a: DeviceLink, b: DeviceLink): boolean {
  return (
    a.transport === b.transport && a.address === b.address && a.addressSource === b.addressSource && a.pushes === b.pushes && a.lanProblem === b.lanProblem
  );
}

function describe(cloud: CloudDevice, previous: Device | undefined, nowIso: string, flags: readonly Flag[], controlFlag: Flag | undefined): Device {
  const known = new Map((previous?.channels ?? []).map((c) => [c.channel, c.on]));
  // A device that was offline may have been turned on or off by hand or lost power, and one whose command channel is or
  // was down misses the pushes meanwhile: either way its states are unknown until they are read again.
  const keepStates = previous !== undefined && previous.presence === 'online' && cloud.online && previous.commandReady && cloud.commandReady;
  const channels: ChannelState[] = cloud.channels.map((c) => ({
    channel: c.channel,
    name: c.name,
    on: keepStates ? (known.get(c.channel) ?? null) : null,
  }));
  const device: Device = {
    uuid: cloud.uuid,
    name: cloud.name,
    type: cloud.type,
    presence: presenceOf(cloud),
    commandReady: cloud.commandReady,
    ...(controlFlag === undefined ? {} : { [controlFlag]: cloud[controlFlag] ?? false }),
    capabilities: [...cloud.capabilities],
    channels,
    link: linkOf(cloud),
    lastSeenAt: cloud.online ? nowIso : (previous?.lastSeenAt ?? null),
  };
  for (const flag of flags) if (flag !== controlFlag && cloud[flag]) device[flag] = true;
  if (cloud.firmware !== undefined) device.firmware = cloud.firmware;
  if (cloud.hardware !== undefined) device.hardware = cloud.hardware;
  return device;
}

/** The known devices and their channel states; every change goes through here and is announced once. */
export class DeviceRegistry {
  private readonly devices = new Map<string, Device>();
  private changes = 0;

  private readonly flags: readonly Flag[];

  /**
   * `flags`: the device families' flags (DomainFamily.deviceFlags), kept from the backend's description;
   * `controlFlag`: the one a device needs to be controllable (DomainFamily.controlFlag), if a family names one.
   */
  constructor(
    private readonly emit: Emit,
    flags: readonly Flag[] = [],
    private readonly controlFlag?: Flag,
  ) {
    this.flags = controlFlag === undefined ? flags : [...flags, controlFlag];
  }

  /** Whether the device takes commands now (online, command channel up, and the control flag). */
  isControllable(device: Device): boolean {
    return isControllable(device, this.controlFlag);
  }

  /** Grows with every change of any device (including last-seen times): lets callers cache what they derive. */
  get revision(): number {
    return this.changes;
  }

  list(): Device[] {
    return [...this.devices.values()].map(copyDevice);
  }

  get(uuid: string): Device | undefined {
    const device = this.devices.get(uuid);
    return device && copyDevice(device);
  }

  /** How the device is reached now, without copying the whole device. */
  linkOf(uuid: string): DeviceLink | undefined {
    const link = this.devices.get(uuid)?.link;
    return link && { ...link };
  }

  counts(): DeviceCounts {
    const all = [...this.devices.values()];
    return {
      total: all.length,
      online: all.filter((d) => d.presence === 'online').length,
      controllable: all.filter((d) => this.isControllable(d)).length,
    };
  }

  /** Makes the known list equal to the cloud's: new ones added, missing ones removed, changed ones updated. */
  reconcile(cloudDevices: CloudDevice[], nowIso: string): SyncResult {
    const incoming = new Map(cloudDevices.map((d) => [d.uuid, d]));
    const result: SyncResult = { total: incoming.size, added: 0, removed: 0, updated: 0 };
    for (const [uuid, device] of this.devices) {
      if (incoming.has(uuid)) continue;
      this.devices.delete(uuid);
      this.changes += 1;
      result.removed += 1;
      this.emit({ type: 'device-removed', uuid, name: device.name });
    }
    for (const cloud of incoming.values()) {
      const previous = this.devices.get(cloud.uuid);
      if (previous && sameDescription(previous, cloud, this.flags)) {
        if (cloud.online) previous.lastSeenAt = nowIso;
        this.changes += 1;
        continue;
      }
      if (previous) result.updated += 1;
      else result.added += 1;
      this.store(cloud, nowIso);
    }
    return result;
  }

  /** A new description of a known device (e.g. its command channel came up); devices enter only by sync. */
  update(cloud: CloudDevice, nowIso: string): void {
    const previous = this.devices.get(cloud.uuid);
    if (previous && !sameDescription(previous, cloud, this.flags)) this.store(cloud, nowIso);
  }

  private store(cloud: CloudDevice, nowIso: string): void {
    const previous = this.devices.get(cloud.uuid);
    const device = describe(cloud, previous, nowIso, this.flags, this.controlFlag);
    this.devices.set(cloud.uuid, device);
    this.changes += 1;
    this.emit({ type: 'device', device: toDeviceRecord(device) });
    const online = device.presence === 'online';
    if (previous && (previous.presence === 'online') !== online) {
      const { uuid, name } = device;
      this.emit({ type: 'online', uuid, name, online, upgrading: device.presence === 'upgrading', controllable: this.isControllable(device) });
    }
  }

  /** Forgets a channel's state (e.g. a command whose outcome is unknown); the next command that needs it reads it first. */
  forgetChannel(uuid: string, channel: number): void {
    const state = this.devices.get(uuid)?.channels.find((c) => c.channel === channel);
    if (!state) return;
    state.on = null;
    this.changes += 1;
  }

  /** Records a channel state; announces it only when it changed. Unknown devices or channels are ignored. */
  setChannel(uuid: string, channel: number, on: boolean, source: 'command' | 'push' | 'read', nowIso: string): void {
    const device = this.devices.get(uuid);
    const state = device?.channels.find((c) => c.channel === channel);
    if (!device || !state) return;
    device.lastSeenAt = nowIso;
    this.changes += 1;
    if (state.on === on) return;
    state.on = on;
    this.emit({ type: 'channel', uuid, name: device.name, channel, on, source });
  }

  /** Records presence; channel states become unknown while a device is away. */
  setPresence(uuid: string, presence: DeviceStatus, nowIso: string): void {
    const device = this.devices.get(uuid);
    if (!device) return;
    const online = presence === 'online';
    if (online) device.lastSeenAt = nowIso;
    this.changes += 1;
    if (device.presence === presence) return;
    device.presence = presence;
    if (!online) for (const c of device.channels) c.on = null;
    this.emit({ type: 'online', uuid, name: device.name, online, upgrading: presence === 'upgrading', controllable: this.isControllable(device) });
  }
}
