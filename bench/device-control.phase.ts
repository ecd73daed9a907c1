import { measureThroughput, type LoadRequest } from './load.js';
import { assertAlive, compare, describeRun, type PhaseContext } from './notifications.phase.js';
import { httpGet, makeTempDir, removeTempDir, stopChild } from './processes.js';
import type { BenchResults } from './results.js';
import { countDevices, startBare, startDeviceControl, type Running } from './services.js';
import { runToggleScript } from './toggle-script.js';

const DEVICES = 50;
const TOGGLE_TIMEOUT_MS = 120_000;

/** GET /devices with 50 simulated devices between two ceiling runs; then the owners' toggle-latency script. */
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
    const before = await measureThroughput(request(bare.port), connections, seconds, warmupSeconds, bare.child.pid);
    describeRun(ctx, 'bare Express 5, device list (before)', before);
    const run = await measureThroughput(request(service.port), connections, seconds, warmupSeconds, service.child.pid);
    assertAlive(service.child, 'the GET /devices run');
    describeRun(ctx, 'device-control GET /devices', run);
    const after = await measureThroughput(request(bare.port), connections, seconds, warmupSeconds, bare.child.pid);
    describeRun(ctx, 'bare Express 5, device list (after)', after);
    results.ceilings.devices.push(before, after);
    results.deviceControl.devices = {
      ...compare(run, [before, after]),
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
  ctx.log(toggle.status === 'measured' ? `toggle adds ${toggle.addedP50Ms?.toFixed(2)} ms (p50) over the emulator` : `toggle latency not measured: ${toggle.reason}`);
}
