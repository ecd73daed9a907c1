import { z } from '@homeops/common';
import { READING_AGE } from '../../../http/device.schemas.js';

/** GET /devices/:uuid/energy. */
export const PowerSchema = z
  .object({
    uuid: z.string(),
    name: z.string(),
    power: z.number().openapi({ description: 'W' }),
    voltage: z.number().openapi({ description: 'V' }),
    current: z.number().openapi({ description: 'A' }),
    ...READING_AGE,
  })
  .openapi('Power');

export type PowerBody = z.infer<typeof PowerSchema>;

/** GET /devices/:uuid/energy/daily. */
export const DailyEnergySchema = z
  .object({ uuid: z.string(), name: z.string(), days: z.array(z.object({ date: z.string(), kWh: z.number() })), ...READING_AGE })
  .openapi('DailyEnergy');

export type DailyEnergyBody = z.infer<typeof DailyEnergySchema>;
