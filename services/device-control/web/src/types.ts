/** GET /devices, one device (the service's Device schema). */
export interface Device {
  uuid: string;
  name: string;
  type: string;
  online: boolean;
  status: 'online' | 'offline' | 'upgrading';
  controllable: boolean;
  channels: Array<{ channel: number; name: string; on: boolean | null }>;
  commandReady: boolean;
  switchable: boolean;
  capabilities: Array<'switch' | 'garageDoor' | 'cover' | 'light' | 'energy' | 'hubSensors'>;
  coverPositioning?: boolean;
  firmware: string | null;
  hardware: string | null;
  lastSeenAt: string | null;
  /** How the next message travels: straight over the LAN, through the cloud, or neither. */
  transport: 'lan' | 'cloud' | 'unreachable';
  /** The LAN address (host or host:port), null while unknown. */
  address: string | null;
  lanProblem: string | null;
}

/** GET /health as anyone gets it: without the key (when one is set) there is nothing more. */
export interface HealthSummary {
  status: 'ok' | 'degraded' | 'error';
  service: string;
  version: string;
}

/** The part of GET /health (asked with the key, or with none set) the status bar shows. */
export interface Health extends HealthSummary {
  problems: string[];
  backend: 'meross' | 'simulator';
  cloud: { state: string; action: string | null; retryAt: string | null };
  sync: { lastSuccessAt: string | null };
  budget: { windows: Array<{ window: 'hour' | 'burst'; limit: number; used: number; remaining: number }> };
  /** Absent from a service older than local control. */
  lan?: { enabled: boolean; summary: string };
}

/** A channel event of GET /events. */
export interface ChannelEvent {
  uuid: string;
  channel: number;
  on: boolean;
  source: 'command' | 'push' | 'read';
}

/** One door of a garage door opener (GET /devices/:uuid/garage-door, and garageDoor events). */
export interface GarageDoor {
  channel: number;
  state: 'open' | 'closed' | 'opening' | 'closing' | null;
}

/** One channel of a cover (GET /devices/:uuid/cover, and cover events). */
export interface Cover {
  channel: number;
  position: number | null;
  motion: 'idle' | 'opening' | 'closing' | null;
}

/** One light channel (GET /devices/:uuid/light, and light events). */
export interface Light {
  channel: number;
  brightness: number | null;
  temperature: number | null;
  /** #rrggbb from GET; a number in events. */
  rgb: string | number | null;
  supports: { brightness: boolean; temperature: boolean; rgb: boolean };
}
