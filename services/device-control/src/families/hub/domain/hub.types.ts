/** A smoke alarm (gs559): `alarm` is smoke or heat, `muted` an alarm silenced at the device, `fault` its error codes. */
export type SmokeState = 'clear' | 'alarm' | 'muted' | 'test' | 'fault';

/** What a device behind a hub is: a valve, a temperature sensor, a leak, smoke or door/window sensor. */
export type HubSubDeviceKind = 'valve' | 'sensor' | 'leak' | 'smoke' | 'contact' | 'other';

/**
 * One device behind a hub (msh300): a thermostat valve (mts100), a temperature/humidity sensor (ms100), a water leak
 * sensor (ms400), a smoke alarm (gs559) or a door/window sensor (ms200).
 */
export interface HubSubDeviceReading {
  id: string;
  name: string;
  kind: HubSubDeviceKind;
  model: string;
  online: boolean;
  /** Battery in %. */
  battery: number | null;
  /** °C; a valve's room temperature, a sensor's reading. */
  temperature: number | null;
  /** % relative humidity (sensors). */
  humidity: number | null;
  /** Valves: open (heating allowed), the target and the range it accepts, °C. */
  on: boolean | null;
  targetTemperature: number | null;
  minTemperature: number | null;
  maxTemperature: number | null;
  /** Leak sensors: water found. */
  leak: boolean | null;
  /** Smoke alarms. */
  smoke: SmokeState | null;
  /** Door/window sensors: open. */
  open: boolean | null;
}

/** What a valve command changes. */
export interface ValveChange {
  on?: boolean;
  targetTemperature?: number;
}

/** What the hubs need from a backend. */
export interface HubCloud {
  /** Reads every device behind a hub with its readings and battery (Hub.Mts100.All, Hub.Sensor.All, Hub.Battery). */
  readHub(uuid: string): Promise<HubSubDeviceReading[]>;
  /** Turns a valve on or off and/or sets its target temperature; resolves once the hub acknowledged. */
  setValve(uuid: string, id: string, change: ValveChange): Promise<void>;
}

declare module '../../../domain/device-cloud.js' {
  interface FamilyCapabilities {
    /** Hub.*: the valves and sensors behind a hub (msh300); a valve takes commands. */
    hubSensors: { control: true };
  }
  interface FamilyCloudEvents {
    hubDevice: { type: 'hubDevice'; uuid: string; id: string; change: Partial<HubSubDeviceReading>; source: 'push' };
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the port joins the backend's interface
  interface FamilyClouds extends HubCloud {}
}

declare module '../../../domain/device-events.js' {
  interface FamilyDeviceEvents {
    hub: { type: 'hub'; uuid: string; name: string; at: string; subdevices: HubSubDeviceReading[]; source: 'command' | 'push' | 'read' };
  }
}

/** The readings of a hub device before any is known: what its kind has is filled in from what the hub tells. */
export const NO_HUB_READINGS = {
  temperature: null,
  humidity: null,
  on: null,
  targetTemperature: null,
  minTemperature: null,
  maxTemperature: null,
  leak: null,
  smoke: null,
  open: null,
} as const;
