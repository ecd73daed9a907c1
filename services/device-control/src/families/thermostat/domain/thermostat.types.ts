/**
 * A thermostat's modes: heat, cool, economy and manual hold their own target; auto follows the device's schedule;
 * timer (MTS960) runs its socket by time and has no target. Each thermostat lists the ones it has.
 */
export const THERMOSTAT_MODES = ['heat', 'cool', 'economy', 'auto', 'manual', 'timer'] as const;
export type ThermostatMode = (typeof THERMOSTAT_MODES)[number];

/** One thermostat channel (mts200, mts960), temperatures in °C. */
export interface ThermostatReading {
  channel: number;
  on: boolean;
  mode: ThermostatMode;
  modes: ThermostatMode[];
  currentTemperature: number | null;
  /** What it regulates to; null in a mode without one (the MTS960's timer). */
  targetTemperature: number | null;
  /** Heating now (its relay or valve is on and it heats rather than cools). */
  heating: boolean;
  /** Cooling now (an MTS960 working to cool, an MTS200 in summer mode). */
  cooling: boolean;
  minTemperature: number;
  maxTemperature: number;
  /** An open window detected (MTS200 declaring Thermostat.WindowOpened); null where the device has no such detection. */
  windowOpen: boolean | null;
  /** Over-temperature protection (Thermostat.Overheat, an MTS200B's floor sensor); null where the device has none. */
  overheat: ThermostatOverheat | null;
  /** The sensor it regulates on (Thermostat.Sensor); null where the device cannot choose. */
  sensor: ThermostatSensor | null;
}

/** A thermostat's over-temperature protection, temperatures in °C. */
export interface ThermostatOverheat {
  /** The protection is turned on. */
  enabled: boolean;
  /** ok; overheating (the external sensor is above the threshold); disconnected (no external sensor answers). */
  warning: 'ok' | 'overheating' | 'disconnected';
  /** Above this the protection stops the heating. */
  threshold: number;
  /** What the external (floor) sensor measures; null while it is disconnected. */
  temperature: number | null;
}

/** The sensor a thermostat regulates on: its own, or an external (floor) one. */
export type ThermostatSensor = 'internal' | 'external';

/** What a thermostat command changes (at least one field). */
export interface ThermostatChange {
  on?: boolean;
  mode?: ThermostatMode;
  targetTemperature?: number;
}

/** What the thermostats need from a backend. */
export interface ThermostatCloud {
  /**
   * Reads every thermostat channel of the device (Thermostat.Mode or .ModeB; its range, overheat protection and sensor
   * where declared apart: up to three messages), as far as it tells.
   */
  readThermostats(uuid: string): Promise<Array<Partial<ThermostatReading> & { channel: number }>>;
  /** One SET of the change; resolves with what the device then reports (or what the change made of the last reading). */
  setThermostat(uuid: string, channel: number, change: ThermostatChange): Promise<Partial<ThermostatReading> & { channel: number }>;
}

declare module '../../../domain/device-cloud.js' {
  interface FamilyCapabilities {
    /** Appliance.Control.Thermostat.Mode (mts200) or .ModeB (mts960): on/off, mode and target. */
    thermostat: { control: true };
  }
  interface FamilyCloudEvents {
    thermostat: { type: 'thermostat'; uuid: string; channel: number; source: 'push' } & Partial<ThermostatReading>;
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the port joins the backend's interface
  interface FamilyClouds extends ThermostatCloud {}
}

declare module '../../../domain/device-events.js' {
  interface FamilyDeviceEvents {
    thermostat: { type: 'thermostat'; uuid: string; name: string; source: 'command' | 'push' | 'read' } & ThermostatReading;
  }
}
