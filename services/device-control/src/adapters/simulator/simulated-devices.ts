import type { CloudDevice, DeviceLink } from '../../domain/device-cloud.js';
import type { AdapterFamily } from '../../families/adapter-family.js';

/** The simulated hardware of the device families; each family adds its part (declaration merging), made on first use. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the families
export interface SimulatedHardware {}

/** A simulated device: its description, the state of each channel, and its families' hardware. */
export interface SimulatedDevice {
  device: CloudDevice;
  states: Map<number, boolean>;
  hardware: SimulatedHardware;
}

/**
 * A device of the simulated account as the family that lists it describes it; its capabilities are those of the
 * families that list it or join it, and each family sets its own fields (`fit`). `on`: the channels' first states.
 */
export type DemoDevice = Pick<CloudDevice, 'uuid' | 'name' | 'type' | 'online' | 'commandReady' | 'channels'> & Partial<CloudDevice> & { on?: boolean[] };

/** A device the simulated house reaches over its LAN (addresses from 192.0.2.0/24, a range kept for documentation). */
export function onLan(address: string): DeviceLink {
  return { transport: 'lan', address, addressSource: 'learned', pushes: true, lanProblem: null };
}

function simulated({ on = [], ...spec }: DemoDevice, lister: AdapterFamily, families: readonly AdapterFamily[]): SimulatedDevice {
  const capabilities = families.filter((f) => f === lister || f.simulator?.joins?.includes(spec.uuid)).map((f) => f.capability);
  const device = { ...spec, capabilities } as CloudDevice;
  for (const f of families) f.simulator?.fit?.(device, capabilities.includes(f.capability));
  return { device, states: new Map(device.channels.map((c, i) => [c.channel, on[i] ?? false])), hardware: {} };
}

/**
 * The quick-start account: each family's devices (src/families/<family>/adapters/<family>.simulator.ts), in the order
 * of the families; some answer over the (simulated) LAN, the rest through the cloud.
 */
export function defaultSimulatedDevices(families: readonly AdapterFamily[]): SimulatedDevice[] {
  return families.flatMap((f) => (f.simulator?.demo?.() ?? []).map((spec) => simulated(spec, f, families)));
}

/** `count` further devices of the plainest kind, made by the first family that makes them (benchmarks with many devices). */
export function extraSimulatedDevices(count: number, families: readonly AdapterFamily[]): SimulatedDevice[] {
  const maker = families.find((f) => f.simulator?.bulk);
  return maker ? maker.simulator!.bulk!(count).map((spec) => simulated(spec, maker, families)) : [];
}
