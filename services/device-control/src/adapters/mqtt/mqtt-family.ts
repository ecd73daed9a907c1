import type { DiscoveryComponent } from '@homeops/common/mqtt';
import type { DeviceEvent } from '../../domain/device-events.js';
import type { DeviceView } from '../../domain/device.js';
import type { DeviceService } from '../../domain/device.service.js';

/** The domain operations Home Assistant's commands call: the ones the HTTP routes call. */
export type CommandOperations = Pick<DeviceService, 'use'>;

/** What the budgeted reads use of the domain: the same reads the HTTP routes make, and the budget's state. */
export type ReadOperations = Pick<DeviceService, 'listDevices' | 'health' | 'use'>;

/** What a family's entities get from the adapter. */
export interface MqttFamilyContext {
  /** The topics of the device `uuid` are under this: `<base>/devices/<slug>`. */
  at(uuid: string): string;
  /** Publishes a retained state and keeps it for a refused command to publish again. */
  state(topic: string, payload: string): void;
  /** Publishes an event (not retained). */
  event(topic: string, payload: string): void;
}

/** A family's Home Assistant side in one adapter: it may keep what the devices last told (their features). */
export interface MqttFamilyEntities {
  /** The device's components in its discovery (none when it is not of the family). */
  components?(device: DeviceView, deviceId: string, at: string): Record<string, DiscoveryComponent>;
  /** The states the device's view already tells, published with each discovery. */
  publishStates?(device: DeviceView): void;
  /** A device event: its states are published; true when the discovery must be published again. */
  onEvent?(event: DeviceEvent): boolean;
  /** A read, free over the LAN, made once a device is found, so its state shows from the start; undefined if none. */
  readAtStart?(devices: CommandOperations, device: DeviceView): Promise<unknown> | undefined;
}

/** One kind of command topic under `<base>/devices/<slug>/`: what it calls, and which states it may have left wrong. */
export interface MqttCommand<E extends MqttFamilyEntities = MqttFamilyEntities> {
  /** The topic under the device, with `+` for the channel (or another key of the family's). */
  suffix: string;
  run(devices: CommandOperations, uuid: string, key: string, text: string, entities: E): Promise<unknown>;
  /** Published again with their true values when the command is refused, so Home Assistant's entity snaps back. */
  states(at: string, uuid: string, key: string, entities: E): string[];
}

/** Reads of a device that pushes nothing, made every interval from the budget's background share. */
export interface BudgetedRead {
  /** The capability the device must have. */
  capability: string;
  /** In this order; a failure or a budget without room ends the round's reads of the device. */
  reads: ReadonlyArray<(devices: ReadOperations, uuid: string) => Promise<unknown>>;
}

/** A device family's Home Assistant side (src/families/<family>/adapters/<family>.mqtt.ts). */
export interface MqttFamily<E extends MqttFamilyEntities = MqttFamilyEntities> {
  /** Its entities for one adapter. */
  entities(context: MqttFamilyContext): E;
  /** Its command topics, in the order they are subscribed to. */
  commands?: ReadonlyArray<MqttCommand<E>>;
  budgetedRead?: BudgetedRead;
}

/** A channel name for Home Assistant: none on a single-channel device (the device's name shows), else its name. */
export function channelNameOf(device: DeviceView, channel: number, name: string): string | null {
  return device.channels.length === 1 ? null : name || `Channel ${channel}`;
}
