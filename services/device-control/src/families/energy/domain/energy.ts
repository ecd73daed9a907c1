import type { DailyEnergy, PowerReading } from './energy.types.js';
import type { DomainFamily } from '../../../domain/device-family.js';
import { ENERGY_WATCHES } from './energy.watches.js';
import { EnergyHistory } from './energy-history.js';
import { DeviceActions, type Aged, type Cached, type DeviceActionsDeps } from '../../../domain/device-actions.js';

/** How old readings may be before a request reads again (tests pass small values). */
export interface EnergyCacheOptions {
  powerMaxAgeMs: number;
  dailyMaxAgeMs: number;
}

/** Power readings are read again after 10 s at the most; the daily history, which changes slowly, after an hour. */
export const DEFAULT_ENERGY_CACHE: EnergyCacheOptions = { powerMaxAgeMs: 10_000, dailyMaxAgeMs: 3_600_000 };

/**
 * Energy plugs (mss310 and others with Appliance.Control.Electricity / ConsumptionX): readings on request only, cached,
 * so any number of dashboards and scripts cost one message per device per cache period, inside the account budget.
 */
export class Energy extends DeviceActions {
  protected readonly capability = 'energy' as const;
  protected readonly actionText = 'measure energy';
  private readonly power = new Map<string, Cached<PowerReading>>();
  private readonly daily = new Map<string, Cached<DailyEnergy[]>>();

  constructor(
    deps: DeviceActionsDeps,
    private readonly cache: EnergyCacheOptions = DEFAULT_ENERGY_CACHE,
    /** Every day read, kept across restarts: a plug holds only its last 16–31. */
    private readonly history = new EnergyHistory(undefined),
  ) {
    super(deps);
  }

  /** Readings are asked for, never pushed. */
  onCloudEvent(): void {}

  forget(uuid: string): void {
    this.power.delete(uuid);
    this.daily.delete(uuid);
  }

  /** Power, voltage and current: the cached reading while fresh, else one read (plus the abilities, the first time). */
  async readPower(uuid: string): Promise<Aged<PowerReading>> {
    const device = this.deviceWith(uuid);
    const cached = this.fresh(this.power.get(uuid), this.cache.powerMaxAgeMs);
    if (cached) return cached;
    const reading = await this.admitted(uuid, 2, () => this.call(`reading power of ${uuid}`, () => this.deps.cloud.readPower(uuid)));
    const entry = { reading, at: this.deps.clock.now() };
    this.power.set(uuid, entry);
    this.deps.publish({ type: 'power', uuid, name: device.name, at: new Date(entry.at).toISOString(), ...reading });
    return this.aged(entry);
  }

  /**
   * Energy per device-local day, oldest first: what the plug holds now, and the days read before that it dropped.
   * Cached for an hour. Room for three messages: the abilities and the device's clock, read once, and the days.
   */
  async readDaily(uuid: string): Promise<Aged<DailyEnergy[]>> {
    const device = this.deviceWith(uuid);
    const cached = this.fresh(this.daily.get(uuid), this.cache.dailyMaxAgeMs);
    if (cached) return cached;
    const read = await this.admitted(uuid, 3, () => this.call(`reading energy of ${uuid}`, () => this.deps.cloud.readDailyEnergy(uuid)));
    const reading = await this.history.record(uuid, read);
    const entry = { reading, at: this.deps.clock.now() };
    this.daily.set(uuid, entry);
    this.deps.publish({ type: 'energy', uuid, name: device.name, at: new Date(entry.at).toISOString(), days: reading });
    return this.aged(entry);
  }
}

/** Energy plugs, as the device service builds them (with its `energyCache` option). */
export const ENERGY: DomainFamily<Energy> = {
  capability: 'energy',
  create: (deps, options) => new Energy(deps, options.energyCache, new EnergyHistory(options.stateFile?.('energy-days'))),
  watches: ENERGY_WATCHES,
};

declare module '../../../domain/device-family.js' {
  interface FamilyOptions {
    /** How old energy readings may be before a request reads again. */
    energyCache?: EnergyCacheOptions;
  }
}
