/** What a light can change besides on/off (Meross's capacity bits: 1 RGB, 2 temperature, 4 luminance). */
export interface LightFeatures {
  brightness: boolean;
  temperature: boolean;
  rgb: boolean;
}

/** Which of its settings a light shows: its colour temperature or its RGB colour (the one set last). */
export type LightColorMode = 'temperature' | 'rgb';

/** A light's settings: brightness and colour temperature 1–100 (warm to cold), colour as 0xRRGGBB; null while unknown. */
export interface LightReading {
  channel: number;
  brightness: number | null;
  temperature: number | null;
  rgb: number | null;
  supports: LightFeatures;
  /** What the light shows, when the device tells it (Meross's capacity bits); the service also knows it from the last change. */
  mode?: LightColorMode | null;
}

/** What a light command changes (at least one field). */
export interface LightChange {
  brightness?: number;
  temperature?: number;
  rgb?: number;
}

/** What the lights need from a backend. */
export interface LightCloud {
  /** Reads each light channel's settings and what the light supports (its abilities and Appliance.System.All). */
  readLight(uuid: string): Promise<LightReading[]>;
  /** Changes brightness, colour temperature or colour (Appliance.Control.Light); resolves once acknowledged. */
  setLight(uuid: string, channel: number, change: LightChange): Promise<void>;
}

declare module '../../../domain/device-cloud.js' {
  interface FamilyCapabilities {
    /** Appliance.Control.Light: brightness, temperature and colour (on/off goes through the channel). */
    light: { control: true };
  }
  interface FamilyCloudEvents {
    light: { type: 'light'; uuid: string; channel: number; source: 'push'; mode?: LightColorMode } & LightChange;
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the port joins the backend's interface
  interface FamilyClouds extends LightCloud {}
}

declare module '../../../domain/device-events.js' {
  interface FamilyDeviceEvents {
    light: { type: 'light'; uuid: string; name: string; source: 'command' | 'push' | 'read' } & LightReading;
  }
}
