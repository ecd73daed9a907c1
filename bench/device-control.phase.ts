import { measureThroughput, type LoadRequest, type LoadResult } from './load.js';
import { assertAlive, compare, describeRun, type PhaseContext } from './phase.js';
import { httpGet, makeTempDir, removeTempDir, stopChild } from './processes.js';
import type { BenchResults } from './results.js';
import { countDevices, startBare, startDeviceControl, type Running } from './services.js';
import { runToggleScript } from './toggle-script.js';

const DEVICES = 50;
const ROUNDS = 2;
const TOGGLE_TIMEOUT_MS = 120_000;

/** GET /devices with 50 simulated devices, alternating with the ceiling (bare, service, bare, service, bare); then the toggle script. */
export async function runDeviceControlPhase(ctx: PhaseContext, results: BenchResults): Promise<void> {
  const { connections, seconds, warmupSeconds } = ctx.settings;
  const dir = makeTempDir('device-control');
  let service: Running | undefined;
  let bare: Running | undefined;
  try {
    service = await startDeviceControl(DEVICES, dir);
    ctx.log(`device-control with ${DEVICES} simulated devices: listing them ${service.startupMs.toFixed(0)} ms after spawn`);
    const sample = await httpGet(service.port, '/devices');
    bare = await startBare('bare devices', 'get', '/devices', 200, sample.body);
    const request = (port: number): LoadRequest => ({ port, method: 'GET', path: '/devices' });
    const runs: LoadResult[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const ceiling = await measureThroughput(request(bare.port), connections, seconds, warmupSeconds, bare.child.pid);
      results.ceilings.devices.push(ceiling);
      describeRun(ctx, 'bare Express 5, device list', ceiling);
      if (round === ROUNDS) break;
      const run = await measureThroughput(request(service.port), connections, seconds, warmupSeconds, service.child.pid);
      assertAlive(service.child, 'the GET /devices run');
      describeRun(ctx, `device-control GET /devices (round ${round + 1})`, run);
      runs.push(run);
    }
    results.deviceControl.devices = {
      ...compare(runs, results.ceilings.devices),
      deviceCount: countDevices(JSON.parse(sample.body)),
      bytes: Buffer.byteLength(sample.body),
    };
  } catch (error) {
    ctx.fail('device-control GET /devices', error);
  } finally {
    if (service) await stopChild(service.child);
    if (bare) await stopChild(bare.child);
    removeTempDir(dir);
  }
  results.deviceControl.toggle = await runToggleScript(TOGGLE_TIMEOUT_MS);
  const toggle = results.deviceControl.toggle;
  ctx.log(
    toggle.status === 'measured' ? `toggle adds ${toggle.addedP50Ms?.toFixed(2)} ms (p50) over the emulator` : `toggle latency not measured: ${toggle.reason}`,
  );
}
