import type { Device } from './device.js';

/** How the devices are reached, as /health shows it beside the cloud session. */
export interface LanHealth {
  /** The backend talks to devices over the LAN where it can (MEROSS_LAN=on). */
  enabled: boolean;
  /** In words: "7 of 8 devices", or "off". */
  summary: string;
  total: number;
  /** Devices whose next message goes over the LAN, through the cloud, or neither. */
  lan: number;
  cloud: number;
  unreachable: number;
  /** Each device the LAN does not serve for a reason worth knowing (a refused key, encryption), once. */
  problems: Array<{ uuid: string; name: string; problem: string }>;
}

/** The LAN part of /health, from the known devices. */
export function lanHealthOf(devices: Device[], enabled: boolean): LanHealth {
  const count = (transport: Device['link']['transport']) => devices.filter((d) => d.link.transport === transport).length;
  const lan = count('lan');
  return {
    enabled,
    summary: enabled ? `${lan} of ${devices.length} devices` : 'off',
    total: devices.length,
    lan,
    cloud: count('cloud'),
    unreachable: count('unreachable'),
    problems: devices.flatMap((d) => (d.link.lanProblem ? [{ uuid: d.uuid, name: d.name, problem: d.link.lanProblem }] : [])),
  };
}
