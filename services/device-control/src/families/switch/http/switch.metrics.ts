import { AppError, type AppMetrics, type KnownLabels } from '@homeops/common';
import { READ_ERRORS } from '../../../http/devices.router.js';

/**
 * Every result a switch command is counted under: `ok`, a code the command can fail with once its body is parsed (a
 * device read's codes), or `error` for a failure that is no AppError. Each starts at 0.
 */
export const SWITCH_COMMAND_LABELS = {
  action: ['toggle', 'set'],
  result: ['ok', ...READ_ERRORS, 'error'],
} as const satisfies KnownLabels<'action' | 'result'>;

/** Runs a switch command (a toggle, or a set on/off); the given form counts it by its result. */
export type SwitchCommandRunner = <T>(action: 'toggle' | 'set', command: () => Promise<T>) => Promise<T>;

/** Runs a command as it is, counting nothing (METRICS=off). */
export const UNCOUNTED: SwitchCommandRunner = (_action, command) => command();

/** Counts every toggle and on/off command through the HTTP API by its result (`ok`, or the error code). */
export function countSwitchCommands(metrics: AppMetrics): SwitchCommandRunner {
  const toggles = metrics.counter(
    {
      name: 'homeops_device_toggles_total',
      help: 'Switch commands through the HTTP API (toggle, or set on/off), by result: ok or the error code',
      labelNames: ['action', 'result'],
    },
    SWITCH_COMMAND_LABELS,
  );
  // A refusal may be thrown before the command's promise exists (an unknown or offline device): run it inside.
  return async (action, command) => {
    try {
      const result = await command();
      toggles.inc({ action, result: 'ok' });
      return result;
    } catch (err) {
      toggles.inc({ action, result: err instanceof AppError ? err.code : 'error' });
      throw err;
    }
  };
}
