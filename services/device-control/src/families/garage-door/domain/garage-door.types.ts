/** A garage door as its opener reports it; `opening` / `closing` while it moves after our command. */
export type GarageDoorState = 'open' | 'closed' | 'opening' | 'closing';

/** One door of an opener (msg100 has channel 0; msg200 has three). */
export interface GarageDoorReading {
  channel: number;
  state: GarageDoorState;
}

/** What the garage doors need from a backend. */
export interface GarageDoorCloud {
  /** Reads the state of every door of a garage door opener (Appliance.GarageDoor.State). */
  readGarageDoors(uuid: string): Promise<GarageDoorReading[]>;
  /** Opens or closes one door; resolves the door's answer (`opening`/`closing` while it moves, or where it already is). */
  setGarageDoor(uuid: string, channel: number, open: boolean): Promise<GarageDoorReading>;
}

declare module '../../../domain/device-cloud.js' {
  interface FamilyCapabilities {
    /** Appliance.GarageDoor.State: open and close; never sent a channel command. */
    garageDoor: { control: true };
  }
  interface FamilyCloudEvents {
    garageDoor: { type: 'garageDoor'; uuid: string; channel: number; state: GarageDoorState; source: 'command' | 'push' | 'read' };
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the port joins the backend's interface
  interface FamilyClouds extends GarageDoorCloud {}
}

declare module '../../../domain/device-events.js' {
  interface FamilyDeviceEvents {
    garageDoor: { type: 'garageDoor'; uuid: string; name: string; channel: number; state: GarageDoorState; source: 'command' | 'push' | 'read' };
  }
}
