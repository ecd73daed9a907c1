// Runs MerossCloud instances in a child process for the adapter tests: NODE_EXTRA_CA_CERTS (the emulator's CA)
// is only read at process start. Calls arrive over IPC; results, errors and cloud events go back the same way.
import { createLogger } from '@homeops/common';
import { MerossCloud, type MerossCloudOptions } from '../../src/adapters/meross/meross-cloud.adapter.js';

type Method = 'start' | 'stop' | 'status' | 'listDevices' | 'readChannels' | 'setChannel' | 'readGarageDoors' | 'setGarageDoor' | 'readCovers' | 'moveCover' | 'readLight' | 'setLight' | 'readPower' | 'readDailyEnergy' | 'readHub' | 'setValve' | 'submitMfaCode';
type Call =
  | { id: number; ping: true }
  | { id: number; create: Omit<MerossCloudOptions, 'logger'> }
  | { id: number; handle: number; method: Method; args: unknown[] };

const logger = createLogger({ service: 'adapter-host', level: 'debug' });
const clouds = new Map<number, MerossCloud>();
let nextHandle = 1;

function run(call: Call): unknown {
  if ('ping' in call) return 'pong';
  if ('create' in call) {
    const handle = nextHandle++;
    const cloud = new MerossCloud({ ...call.create, logger: logger.child({ adapter: handle }) });
    cloud.onEvent((event) => process.send?.({ handle, event }));
    clouds.set(handle, cloud);
    return handle;
  }
  const cloud = clouds.get(call.handle);
  if (!cloud) throw new Error(`no adapter ${call.handle}`);
  const method = cloud[call.method] as (...args: unknown[]) => unknown;
  return method.apply(cloud, call.args);
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
