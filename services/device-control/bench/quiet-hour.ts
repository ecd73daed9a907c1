/**
 * How many messages device-control sends to the Meross cloud in a quiet hour (nobody switches anything) for a
 * household of 10 devices, counted by the in-repo emulator (every HTTP API call, every MQTT request to a device),
 * with the service's default settings. Writes bench/results/quiet-hour.json.
 * Run from services/device-control: npx tsx --conditions=source bench/quiet-hour.ts   (BENCH_MINUTES, default 60)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount, MerossEmulator, type EmulatedDeviceSpec } from '../test/emulator/meross-emulator.js';
import { createTestPki } from '../test/emulator/pki.js';
import { EmulatedService } from '../test/e2e/service-process.js';

const MINUTES = Number(process.env.BENCH_MINUTES ?? 60);
const RESULTS = fileURLToPath(new URL('./results/quiet-hour.json', import.meta.url));

/** Six plugs, three strips and a hub, on two brokers: a household as the guidance has in mind. */
function household(): EmulatedDeviceSpec[] {
  const plugs = Array.from({ length: 6 }, (_, i) => ({ uuid: `plug${String(i).padStart(28, '0')}`, name: `Plug ${i}`, type: 'mss310', broker: i % 2 }));
  const strips = Array.from({ length: 3 }, (_, i) => ({
    uuid: `strip${String(i).padStart(27, '0')}`,
    name: `Strip ${i}`,
    type: 'mss425f',
    outlets: ['A', 'B', 'C', 'USB'],
    broker: i % 2,
  }));
  return [...plugs, ...strips, { uuid: `hub${'0'.repeat(29)}`, name: 'Hub', type: 'msh300', protocol: 'none' }];
}

async function main(): Promise<void> {
  const pki = createTestPki();
  const account = createAccount();
  const devices = household();
  const emulator = await MerossEmulator.start({ pki, account, devices, brokers: 2 });
  const workDir = mkdtempSync(join(tmpdir(), 'quiet-hour-'));
  // The service's defaults, except what EmulatedService shortens for tests.
  const service = await EmulatedService.start({
    apiUrl: emulator.apiUrl,
    account,
    caFile: pki.caFile,
    workDir,
    env: {
      LOG_LEVEL: 'info',
      CLOUD_SYNC_INTERVAL_SECONDS: '300',
      CLOUD_REQUEST_TIMEOUT_MS: '10000',
      CLOUD_COMMAND_TIMEOUT_MS: '5000',
      SSE_HEARTBEAT_SECONDS: '15',
    },
  });
  const startedAt = new Date().toISOString();
  try {
    const minutes: Array<{ minute: number; api: number; mqttRequests: number }> = [];
    for (let minute = 1; minute <= MINUTES; minute += 1) {
      await new Promise((resolve) => setTimeout(resolve, 60_000));
      const counts = emulator.messageCounts();
      minutes.push({ minute, api: counts.api, mqttRequests: counts.mqttRequests });
      console.log(`minute ${minute}: ${counts.api} API calls, ${counts.mqttRequests} MQTT requests so far`);
    }
    const counts = emulator.messageCounts();
    const health = (await service.request('GET', '/health')).body as { budget: unknown };
    const result = {
      command: 'npx tsx --conditions=source bench/quiet-hour.ts' + (MINUTES === 60 ? '' : ` (BENCH_MINUTES=${MINUTES})`),
      startedAt,
      minutes: MINUTES,
      devices: { total: devices.length, plugs: 6, strips: 3, hubs: 1, brokers: 2 },
      settings: 'defaults: CLOUD_SYNC_INTERVAL_SECONDS=300, CLOUD_BACKGROUND_READ_INTERVAL_SECONDS=60, 180 messages/hour, 15/minute',
      emulatorCounted: {
        messages: counts.api + counts.mqttRequests,
        apiCalls: counts.api,
        apiByPath: { signIn: emulator.api.calls.signIn, devList: emulator.api.calls.devList, getSubDevices: emulator.api.calls.getSubDevices },
        mqttRequests: counts.mqttRequests,
        mqttConnections: counts.mqttConnections,
      },
      perMinute: minutes,
      serviceBudgetAtEnd: health.budget,
    };
    mkdirSync(join(RESULTS, '..'), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result.emulatorCounted));
  } finally {
    await service.stop();
    await emulator.stop();
    pki.remove();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
