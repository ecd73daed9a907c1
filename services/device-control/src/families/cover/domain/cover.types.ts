/** Whether a cover (roller shutter) is moving: Meross's 0 idle, 1 opening, 2 closing. */
export type CoverMotion = 'idle' | 'opening' | 'closing';

/** One cover channel: position 0 (closed) to 100 (open), null while unknown. */
export interface CoverReading {
  channel: number;
  position: number | null;
  motion: CoverMotion;
}

/** What the covers need from a backend. */
export interface CoverCloud {
  /** Reads position and motion of every cover channel (Appliance.RollerShutter.Position and .State: two messages). */
  readCovers(uuid: string): Promise<CoverReading[]>;
  /**
   * Sends a cover toward a position (100 open, 0 closed, in between where the device supports it) or stops it
   * (`stop`); resolves once the device acknowledged. Where it ends up arrives as pushes.
   */
  moveCover(uuid: string, channel: number, target: number | 'stop'): Promise<void>;
}

declare module '../../../domain/device-cloud.js' {
  interface FamilyCapabilities {
    /** Appliance.RollerShutter.*: open, close, stop and position; never sent a channel command. */
    cover: { control: true };
  }
  interface FamilyCloudEvents {
    cover: { type: 'cover'; uuid: string; channel: number; position?: number; motion?: CoverMotion; source: 'push' };
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the port joins the backend's interface
  interface FamilyClouds extends CoverCloud {}
  interface FamilyDeviceFlags {
    /** A cover that goes to any position, not only fully open or closed (Meross firmware 6.6.6 and later). */
    coverPositioning: boolean;
  }
}

declare module '../../../domain/device-events.js' {
  interface FamilyDeviceEvents {
    cover: { type: 'cover'; uuid: string; name: string; channel: number; position: number | null; motion: CoverMotion; source: 'command' | 'push' | 'read' };
  }
}
