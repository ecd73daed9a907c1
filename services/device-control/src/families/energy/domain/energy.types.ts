/** What an energy plug measures now: watts, volts, amperes. */
export interface PowerReading {
  power: number;
  voltage: number;
  current: number;
}

/** Energy used on one day (the device's own date), in kWh. */
export interface DailyEnergy {
  date: string;
  kWh: number;
}

/** What the energy readings need from a backend. */
export interface EnergyCloud {
  /** Reads power, voltage and current now (Appliance.Control.Electricity). */
  readPower(uuid: string): Promise<PowerReading>;
  /** Reads the energy used per day as the device keeps it (Appliance.Control.ConsumptionX). */
  readDailyEnergy(uuid: string): Promise<DailyEnergy[]>;
}

declare module '../../../domain/device-cloud.js' {
  interface FamilyCapabilities {
    /** Appliance.Control.Electricity / ConsumptionX: read-only, so no command has it. */
    energy: { control: false };
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the port joins the backend's interface
  interface FamilyClouds extends EnergyCloud {}
}

declare module '../../../domain/device-events.js' {
  interface FamilyDeviceEvents {
    power: { type: 'power'; uuid: string; name: string; at: string } & PowerReading;
    energy: { type: 'energy'; uuid: string; name: string; at: string; days: DailyEnergy[] };
  }
}
