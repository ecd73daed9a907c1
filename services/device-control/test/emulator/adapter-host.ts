// Runs MerossCloud instances in a child process for the adapter tests: NODE_EXTRA_CA_CERTS (the emulator's CA)
// is only read at process start. Calls arrive over IPC; results, errors and cloud events go back the same way.
import { createLogger, ManualClock, systemClock, type Clock } from '@homeops/common';
import { MerossCloud } from '../../src/adapters/meross/meross-cloud.adapter.js';
import type { RemoteCloudOptions } from './adapter-process.js';

type Method =
  | 'start'
  | 'stop'
  | 'status'
  | 'listDevices'
  | 'readChannels'
  | 'setChannel'
  | 'readGarageDoors'
  | 'setGarageDoor'
  | 'readCovers'
  | 'moveCover'
  | 'readLight'
  | 'setLight'
  | 'readPower'
  | 'readDailyEnergy'
  | 'readHub'
  | 'setValve'
  | 'readThermostats'
  | 'setThermostat'
  | 'submitMfaCode'
  | 'abilitiesKnown';
/** The adapter's ManualClock, moved by the test: its time, its pending timers, a move forward. */
type ClockMethod = 'clockNow' | 'clockTimers' | 'advanceClock';
type Call =
  { id: number; ping: true } | { id: number; create: RemoteCloudOptions } | { id: number; handle: number; method: Method | ClockMethod; args: unknown[] };

const logger = createLogger({ service: 'adapter-host', level: 'debug' });
const clouds = new Map<number, MerossCloud>();
const clocks = new Map<number, Clock>();
let nextHandle = 1;

function run(call: Call): unknown {
  if ('ping' in call) return 'pong';
  if ('create' in call) {
    const handle = nextHandle++;
    const { manualClock, ...options } = call.create;
    const clock = manualClock ? new ManualClock() : systemClock;
    const cloud = new MerossCloud({ ...options, clock, logger: logger.child({ adapter: handle }) });
    clocks.set(handle, clock);
    cloud.onEvent((event) => process.send?.({ handle, event }));
    clouds.set(handle, cloud);
    return handle;
  }
  const cloud = clouds.get(call.handle);
  if (!cloud) throw new Error(`no adapter ${call.handle}`);
  if (call.method === 'clockNow' || call.method === 'clockTimers' || call.method === 'advanceClock')
    return moveClock(cloud, call.handle, call.method, call.args);
  const method = cloud[call.method] as (...args: unknown[]) => unknown;
  return method.apply(cloud, call.args);
}

async function moveClock(cloud: MerossCloud, handle: number, method: ClockMethod, args: unknown[]): Promise<number> {
  const clock = clocks.get(handle);
  if (!(clock instanceof ManualClock)) throw new Error(`adapter ${handle} runs on the system clock`);
  if (method === 'advanceClock') {
    await attemptTail(cloud);
    clock.advance(args[0] as number);
  }
  return method === 'clockTimers' ? clock.timers : clock.now();
}

/**
 * The rest of an attempt whose state already shows (backing off, locked out, connected) while it still drops or
 * saves the token and arms the retry. The clock moves only after it: a retry due meanwhile would be armed late or
 * join the attempt, which waits of 300 ms and more on the system clock never allow. An attempt still connecting
 * may wait on the clock itself (a timeout), so it is not waited for.
 */
async function attemptTail(cloud: MerossCloud): Promise<void> {
  if (cloud.status().state === 'connecting') return;
  // The adapter's own SingleFlight of session attempts (private: nothing outside the adapter needs it).
  await cloud['attempt'].current;
}

process.on('message', (call: Call) => {
  Promise.resolve()
    .then(() => run(call))
    .then(
      (value) => process.send?.({ id: call.id, ok: true, value }),
      (err: { name?: string; code?: string; message?: string; retryAfterSeconds?: number; details?: unknown }) =>
        process.send?.({
          id: call.id,
          ok: false,
          error: { name: err.name, code: err.code, message: err.message, retryAfterSeconds: err.retryAfterSeconds, details: err.details },
        }),
    );
});
process.on('disconnect', () => void Promise.all([...clouds.values()].map((c) => c.stop())).finally(() => process.exit(0)));
