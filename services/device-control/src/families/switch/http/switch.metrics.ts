import { AppError, type AppMetrics, type KnownLabels } from '@homeops/common';
import type { DeviceService } from '../../../domain/device.service.js';
import { READ_ERRORS } from '../../../http/devices.router.js';

/**
 * Every result a switch command is counted under: `ok`, a code the command can fail with once its body is parsed (a
 * device read's codes), or `error` for a failure that is no AppError. Each starts at 0.
 */
export const SWITCH_COMMAND_LABELS = {
  action: ['toggle', 'set'],
  result: ['ok', ...READ_ERRORS, 'error'],
} as const satisfies KnownLabels<'action' | 'result'>;

/**
 * The device service as the routes see it, counting every toggle and on/off command by its result (`ok`, or the
 * error code): a view over `devices`, which stays the one that holds the state.
 */
export function countSwitchCommands(metrics: AppMetrics, devices: DeviceService): DeviceService {
  const toggles = metrics.counter(
    {
      name: 'homeops_device_toggles_total',
      help: 'Switch commands through the HTTP API (toggle, or set on/off), by result: ok or the error code',
      labelNames: ['action', 'result'],
    },
    SWITCH_COMMAND_LABELS,
  );
  // A refusal may be thrown before the command's promise exists (an unknown or offline device): run it inside.
  const counted = async <T>(action: 'toggle' | 'set', command: () => Promise<T>): Promise<T> => {
    try {
      const result = await command();
      toggles.inc({ action, result: 'ok' });
      return result;
    } catch (err) {
      toggles.inc({ action, result: err instanceof AppError ? err.code : 'error' });
      throw err;
    }
  };
  const view = Object.create(devices) as DeviceService;
  view.toggleChannel = (uuid, channel) => counted('toggle', () => devices.toggleChannel(uuid, channel));
  view.setChannel = (uuid, channel, on) => counted('set', () => devices.setChannel(uuid, channel, on));
  return view;
}
