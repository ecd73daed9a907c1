import { AppError } from '@homeops/common';
import { record, type Abilities } from '../../../adapters/meross/meross-abilities.js';
import type { DeviceEntry } from '../../../adapters/meross/meross-device-entry.js';
import { get, set, type MerossDeviceAccess, type MerossFamily } from '../../../adapters/meross/meross-family.js';
import { notControllable } from '../../../adapters/meross/meross-messenger.js';
import type { ChannelReading } from '../../../adapters/meross/meross-payloads.js';

/** How a device is switched: ToggleX (per channel), Toggle (old single-channel plugs), or not at all. */
export type SwitchProtocol = 'togglex' | 'toggle' | 'none';

declare module '../../../adapters/meross/meross-device-entry.js' {
  interface FamilyMemory {
    /** How the device is switched: from its abilities, or from System.All until they are read; unknown before. */
    protocol?: SwitchProtocol;
  }
}

function readings(value: unknown, defaultChannel = 0): ChannelReading[] {
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((entry) => {
    const e = record(entry);
    if (!e || (e.onoff !== 0 && e.onoff !== 1)) return [];
    const channel = typeof e.channel === 'number' && Number.isInteger(e.channel) ? e.channel : defaultChannel;
    return [{ channel, on: e.onoff === 1 }];
  });
}

/** Channel states and switch protocol from an Appliance.System.All answer; null when it is not one. */
export function parseSystemAll(payload: unknown): { protocol: SwitchProtocol; channels: ChannelReading[] } | null {
  const all = record(record(payload)?.all);
  if (!all) return null;
  const togglex = record(all.digest)?.togglex;
  if (togglex !== undefined) return { protocol: 'togglex', channels: readings(togglex) };
  const toggle = record(all.control)?.toggle;
  if (toggle !== undefined) return { protocol: 'toggle', channels: readings(toggle) };
  return { protocol: 'none', channels: [] };
}

/** Channel states from an Appliance.Control.ToggleX or Appliance.Control.Toggle push. */
export function parseTogglePush(namespace: string, payload: unknown): ChannelReading[] {
  const body = record(payload);
  if (namespace === 'Appliance.Control.ToggleX') return readings(body?.togglex);
  if (namespace === 'Appliance.Control.Toggle') return readings(body?.toggle);
  return [];
}

/** Never a switch command before the abilities say the device is a switch: an opener may list ToggleX. */
async function assertSwitch(access: MerossDeviceAccess, entry: DeviceEntry): Promise<void> {
  const abilities = await access.abilitiesOf(entry);
  if (access.capabilitiesOf(abilities).includes('switch')) return;
  const what = access.refusalOf(abilities) ?? 'declares no switch';
  throw notControllable(`Device ${entry.def.uuid} ${what}; it is never sent a switch command`);
}

async function read(access: MerossDeviceAccess, entry: DeviceEntry): Promise<ChannelReading[]> {
  // A state read (GET) is harmless to any device, and its abilities cost a message: they are read before the
  // first command instead. Known ones still refuse a device that is no switch.
  if (entry.abilities) await assertSwitch(access, entry);
  const { revision, connection } = entry;
  const overCloud = access.overCloud(entry);
  const all = parseSystemAll(await access.send(entry, 'reading Appliance.System.All', get('Appliance.System.All')));
  if (!all) throw new AppError('CLOUD_ERROR', `Device ${entry.def.uuid} sent an unreadable Appliance.System.All answer`);
  if (!entry.abilities && entry.memory.protocol !== all.protocol) {
    // Until the abilities are read, System.All tells how the device switches (a gateway reports none).
    entry.memory.protocol = all.protocol;
    access.emitDevice(entry);
  }
  if (overCloud && entry.connection !== connection) {
    throw notControllable(`The command channel (MQTT) to device ${entry.def.uuid} dropped while its state was read`);
  }
  // A push or a command that came while the answer was on its way is newer than the answer: it wins.
  const changed = entry.revision !== revision;
  return all.channels.map(({ channel, on }) => {
    const known = entry.states.get(channel);
    if (changed && known !== undefined) return { channel, on: known };
    entry.states.set(channel, on);
    return { channel, on };
  });
}

async function setChannel(access: MerossDeviceAccess, uuid: string, channel: number, on: boolean): Promise<void> {
  const entry = access.reachable(uuid);
  await assertSwitch(access, entry);
  if (entry.memory.protocol === 'toggle' && channel !== 0) {
    throw new AppError('VALIDATION_FAILED', `Device ${uuid} has only channel 0`, {
      details: [{ path: 'channel', message: 'this device has only channel 0' }],
    });
  }
  const onoff = on ? 1 : 0;
  await access.send(
    entry,
    `switching channel ${channel}`,
    entry.memory.protocol === 'toggle'
      ? set('Appliance.Control.Toggle', { toggle: { onoff } })
      : set('Appliance.Control.ToggleX', { togglex: { channel, onoff } }),
  );
  access.record(entry, [{ channel, on }], 'command');
}

const declaresSwitch = (abilities: Abilities) => abilities.has('Appliance.Control.ToggleX') || abilities.has('Appliance.Control.Toggle');

/** Switches and plugs over Meross: Appliance.Control.ToggleX per channel, Appliance.Control.Toggle on old plugs. */
export const SWITCH_MEROSS: MerossFamily = {
  capability: 'switch',
  declares: declaresSwitch,
  // A device of a family that refuses others (an opener, a shutter) is never a switch, whatever switch namespace it
  // also declares (some openers list ToggleX): what a switch command would make them do is unknown.
  yields: true,
  assumed: true,
  learn(entry, abilities, capabilities) {
    entry.memory.protocol = !capabilities.includes('switch') ? 'none' : abilities.has('Appliance.Control.ToggleX') ? 'togglex' : 'toggle';
  },
  fit(device, member, entry) {
    device.switchable = member && entry.memory.protocol !== 'none';
  },
  push(entry, namespace, payload, access) {
    const states = parseTogglePush(namespace, payload);
    if (states.length === 0) return false;
    access.setOnline(entry, true);
    access.record(entry, states, 'push');
    return true;
  },
  poll: (_entry, answers) => ({ channels: parseSystemAll(answers.get('Appliance.System.All'))?.channels ?? [] }),
  port: (access) => ({
    readChannels: async (uuid) => read(access, access.reachable(uuid)),
    setChannel: (uuid, channel, on) => setChannel(access, uuid, channel, on),
  }),
};
