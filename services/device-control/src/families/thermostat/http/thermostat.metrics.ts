import type { AppMetrics } from '@homeops/common';
import type { DeviceService } from '../../../domain/device.service.js';
import type { ThermostatReading } from '../domain/thermostat.types.js';
import { THERMOSTATS } from '../domain/thermostats.js';

/**
 * Each thermostat's room temperature, target and heating as it last told (read at scrape time, no I/O). One series
 * per thermostat channel, labelled by its device's uuid: bounded by the account's thermostats, and what a temperature
 * graph needs.
 */
export function registerThermostatMetrics(metrics: AppMetrics, devices: DeviceService): void {
  const gauge = (name: string, help: string, value: (t: ThermostatReading) => number | null) =>
    metrics.gauge({
      name,
      help,
      labelNames: ['device', 'channel'],
      collect() {
        this.reset();
        for (const { uuid, reading } of devices.use(THERMOSTATS).known()) {
          const v = value(reading);
          if (v !== null) this.set({ device: uuid, channel: String(reading.channel) }, v);
        }
      },
    });
  gauge('homeops_thermostat_temperature_celsius', 'The room temperature each thermostat last reported, °C', (t) => t.currentTemperature);
  gauge('homeops_thermostat_target_celsius', "Each thermostat's target, °C (none in a mode without one)", (t) => t.targetTemperature);
  gauge('homeops_thermostat_heating', '1 while a thermostat heats, 0 otherwise', (t) => (t.heating ? 1 : 0));
}
