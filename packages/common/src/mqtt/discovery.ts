/** Who publishes the discovery messages (HA's `origin`, abbreviated `o`): shown in HA's log for each discovered item. */
export interface DiscoveryOrigin {
  name: string;
  swVersion: string;
  supportUrl: string;
}

/** One entity of a device: its HA platform, a stable id and the platform's own options (full names, as HA documents them). */
export interface DiscoveryComponent {
  platform: string;
  /** Unique among all of HA's MQTT entities: the builder prefixes nothing, so include the device id. */
  uniqueId: string;
  /** The entity's name under its device; null makes it the device's main feature. */
  name: string | null;
  options: Record<string, unknown>;
}

/** One HA device and its components, published retained at `<prefix>/device/<id>/config`. */
export interface DiscoveryDevice {
  /** The discovery topic's object id, and the device's identifier: letters, digits, _ and - only. */
  id: string;
  name: string;
  manufacturer?: string;
  model?: string;
  swVersion?: string;
  /** Another device's id this one is reached through (a hub, the service itself). */
  viaDevice?: string;
  suggestedArea?: string;
  /**
   * The device's own availability topic (`online`/`offline`), listed after the service's: with `availability_mode: all`
   * its entities are unavailable while either says offline.
   */
  availabilityTopic?: string;
  /** Keyed by component id (part of HA's discovery id: keep it stable). */
  components: Record<string, DiscoveryComponent>;
}

/** A discovery message: where it goes (retained) and its JSON text. */
export interface DiscoveryMessage {
  topic: string;
  payload: string;
}

const OBJECT_ID = /^[A-Za-z0-9_-]+$/;

/** `<prefix>/device/<id>/config`, HA's device-discovery topic. */
export function discoveryTopic(prefix: string, deviceId: string): string {
  if (!OBJECT_ID.test(deviceId)) throw new Error(`a discovery device id must be letters, digits, _ or -: ${JSON.stringify(deviceId)}`);
  return `${prefix}/device/${deviceId}/config`;
}

/**
 * HA's device discovery payload: `dev`, `o`, the availability topics (every one must say online: `availability_mode:
 * all`) and `cmps`, each component with its platform `p` and `unique_id`.
 */
export function buildDiscoveryMessage(prefix: string, device: DiscoveryDevice, origin: DiscoveryOrigin, availabilityTopics: string[]): DiscoveryMessage {
  const cmps: Record<string, Record<string, unknown>> = {};
  for (const [key, component] of Object.entries(device.components)) {
    if (!OBJECT_ID.test(key)) throw new Error(`a component id must be letters, digits, _ or -: ${JSON.stringify(key)}`);
    cmps[key] = { p: component.platform, unique_id: component.uniqueId, name: component.name, ...component.options };
  }
  const dev: Record<string, unknown> = { ids: [device.id], name: device.name };
  if (device.manufacturer !== undefined) dev.mf = device.manufacturer;
  if (device.model !== undefined) dev.mdl = device.model;
  if (device.swVersion !== undefined) dev.sw = device.swVersion;
  if (device.viaDevice !== undefined) dev.via_device = device.viaDevice;
  if (device.suggestedArea !== undefined) dev.sa = device.suggestedArea;
  const payload = {
    dev,
    o: { name: origin.name, sw: origin.swVersion, url: origin.supportUrl },
    availability: [...availabilityTopics, ...(device.availabilityTopic === undefined ? [] : [device.availabilityTopic])].map((topic) => ({ topic })),
    availability_mode: 'all',
    cmps,
  };
  return { topic: discoveryTopic(prefix, device.id), payload: JSON.stringify(payload) };
}

/** A name made into a topic level and id: lower case, runs of anything but letters and digits as one `_`. */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return slug.length > 0 ? slug.slice(0, 64) : 'x';
}
