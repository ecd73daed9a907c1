/** What the switches need from a backend: the channels' states and their on/off. */
export interface SwitchCloud {
  /** Reads every channel's state from the device (Appliance.System.All). */
  readChannels(uuid: string): Promise<Array<{ channel: number; on: boolean }>>;
  /** Switches one channel and resolves once the device acknowledged it. */
  setChannel(uuid: string, channel: number, on: boolean): Promise<void>;
}

declare module '../../../domain/device-family.js' {
  interface FamilyDeviceCounts {
    /** Online switches whose command channel is down: the session may be up while commands cannot be sent. */
    awaitingCommandChannel: number;
  }
}

declare module '../../../domain/device-cloud.js' {
  interface FamilyCapabilities {
    /** Appliance.Control.ToggleX (per channel) or Toggle (old plugs): toggle and channel on/off. */
    switch: { control: true };
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the port joins the backend's interface
  interface FamilyClouds extends SwitchCloud {}
  interface FamilyDeviceFlags {
    /** The device can be switched: it has the `switch` capability (and its channels answer on/off). */
    switchable: boolean;
  }
}
