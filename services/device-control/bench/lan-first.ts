/**
 * Local control, measured against the in-repo emulator with the real service (src/main.ts, the real meross-cloud):
 * 1. A toggle over the LAN through the service (POST /devices/:uuid/toggle) against the emulator's own LAN round trip
 *    (a bare signed POST /config of the same SET ToggleX to the same device), samples alternating.
 * 2. Cloud messages of a 10-device account with a realistic day of use (100 commands), LAN-first (MEROSS_LAN=on)
 *    against cloud-only (MEROSS_LAN=off), side by side: what a start, a command and a periodic sync cost at the
 *    emulator, and an hour from those (12 syncs at the default 300 s, 100/24 commands).
 * Writes bench/results/local-control-bench.json. Run from services/device-control:
 *   npx tsx --conditions=source bench/lan-first.ts   (BENCH_SAMPLES, default 250)
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { eventually } from '@homeops/test-kit';
import type { EmulatedDeviceSpec } from '../test/emulator/meross-emulator.js';
import { delta, LanSetup } from '../test/e2e/lan-setup.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 250);
const WARMUP = 20;
const COMMANDS_PER_DAY = 100;
const SYNCS_PER_HOUR = 3_600 / 300;
const OUTPUT = fileURLToPath(new URL('../../../bench/results/local-control-bench.json', import.meta.url));
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** Ten devices: six plugs, a strip, a garage door, blinds and a bulb. */
function tenDevices(): EmulatedDeviceSpec[] {
  const plugs = Array.from({ length: 6 }, (_, i): EmulatedDeviceSpec => ({
    uuid: `plug${String(i + 1).padStart(28, '0')}`,
    name: `Plug ${i + 1}`,
    type: 'mss310',
  }));
  return [
    ...plugs,
    { uuid: 'strip000000000000000000000000002', name: 'Strip', type: 'mss425f', outlets: ['A', 'B', 'C', 'D'] },
    { uuid: 'door0000000000000000000000000005', name: 'Garage', type: 'msg100', garageDoor: true },
    { uuid: 'blinds00000000000000000000000006', name: 'Blinds', type: 'mrs100', cover: true, firmware: '7.1.0' },
    { uuid: 'bulb0000000000000000000000000007', name: 'Bulb', type: 'msl430', lightCapacity: 5 },
  ];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function time(work: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function post(agent: Agent, url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${url} answered ${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The emulator's own round trip: one signed SET ToggleX to the device's /config, as an app on the LAN sends it. */
function bareToggle(agent: Agent, host: string, key: string, on: boolean): Promise<string> {
  const messageId = randomBytes(16).toString('hex');
  const timestamp = Math.floor(Date.now() / 1000);
  const header = {
    messageId,
    namespace: 'Appliance.Control.ToggleX',
    method: 'SET',
    payloadVersion: 1,
    from: `http://${host}/config`,
    timestamp,
    sign: md5(`${messageId}${key}${timestamp}`),
  };
  return post(agent, `http://${host}/config`, JSON.stringify({ header, payload: { togglex: { channel: 1, onoff: on ? 1 : 0 } } }));
}

async function latency(): Promise<Record<string, number>> {
  const setup = await LanSetup.create(tenDevices(), { LOG_LEVEL: 'warn', CLOUD_MAX_MESSAGES_PER_HOUR: '3600', CLOUD_MAX_MESSAGES_PER_MINUTE: '600' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const deviceAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await setup.startService();
    await setup.allOnLan(60_000);
    const plug = 'plug0000000000000000000000000001';
    const viaService: number[] = [];
    const direct: number[] = [];
    const cloudBefore = setup.counts();
    for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
      const s = await time(() => post(agent, `${setup.service!.baseUrl}/devices/${plug}/toggle`, '{"channel":0}').then(() => undefined));
      const d = await time(() => bareToggle(deviceAgent, setup.emulator.lanHost(plug), setup.account.key, i % 2 === 0).then(() => undefined));
      if (i >= WARMUP) {
        viaService.push(s);
        direct.push(d);
      }
    }
    const cloudDuring = delta(setup.counts(), cloudBefore);
    return {
      samples: SAMPLES,
      bareP50Ms: round(percentile(direct, 50)),
      bareP99Ms: round(percentile(direct, 99)),
      serviceP50Ms: round(percentile(viaService, 50)),
      serviceP99Ms: round(percentile(viaService, 99)),
      addedP50Ms: round(percentile(viaService, 50) - percentile(direct, 50)),
      cloudMessagesDuringToggles: cloudDuring.api + cloudDuring.mqttRequests,
    };
  } finally {
    agent.destroy();
    deviceAgent.destroy();
    await setup.stop();
  }
}

/** What a start, a command and a sync cost at the emulator in one mode, and an hour of such a day from them. */
async function cloudCost(lan: 'on' | 'off'): Promise<Record<string, number>> {
  const setup = await LanSetup.create(tenDevices(), { LOG_LEVEL: 'warn', MEROSS_LAN: lan, CLOUD_MAX_MESSAGES_PER_MINUTE: '15' });
  try {
    await setup.startService();
    // The start settles: sign-in, list, broker, state reads and (LAN-first) one address read per device.
    await eventually(async () => (await setup.devices()).every((d) => d.transport === (lan === 'on' ? 'lan' : 'cloud')), {
      what: 'every device settled',
      timeoutMs: 150_000,
    });
    const start = setup.counts();
    // The second start of a service is what runs for months: restart, settle, measure from there.
    await setup.stopService();
    await setup.startService();
    await eventually(async () => (await setup.devices()).every((d) => d.transport === (lan === 'on' ? 'lan' : 'cloud')), {
      what: 'the restart settled',
      timeoutMs: 60_000,
    });
    const restart = delta(setup.counts(), start);
    const uuids = [...setup.emulator.devices.keys()].filter((u) => u.startsWith('plug') || u.startsWith('strip') || u.startsWith('bulb'));
    const beforeCommands = setup.counts();
    for (let i = 0; i < COMMANDS_PER_DAY; i += 1) {
      const res = await setup.request('PUT', `/devices/${uuids[i % uuids.length]}/channels/0`, { on: i % 2 === 0 });
      // Past the budget's minute window a cloud-only command waits as a user would.
      if (res.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, Number(res.body.retryAfterSeconds ?? 5) * 1000));
        i -= 1;
      } else if (res.status !== 200) throw new Error(`command answered ${res.status}`);
    }
    const commands = delta(setup.counts(), beforeCommands);
    const beforeSyncs = setup.counts();
    for (let i = 0; i < 3; i += 1) await setup.request('POST', '/devices/sync');
    const syncs = delta(setup.counts(), beforeSyncs);
    const cloud = (c: { api: number; mqttRequests: number }) => c.api + c.mqttRequests;
    const perCommand = cloud(commands) / COMMANDS_PER_DAY;
    const perSync = cloud(syncs) / 3;
    return {
      firstStart: cloud(start),
      restart: cloud(restart),
      perCommand: round(perCommand),
      perSync: round(perSync),
      hour: round(SYNCS_PER_HOUR * perSync + (COMMANDS_PER_DAY / 24) * perCommand),
      dayOfCommands: cloud(commands),
      lanRequestsForTheCommands: commands.lanRequests,
    };
  } finally {
    await setup.stop();
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const result = {
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
  node: process.version,
  command: 'cd services/device-control && npx tsx --conditions=source bench/lan-first.ts',
  toggleLatency: await latency(),
  cloudMessages: {
    devices: 10,
    commandsPerDay: COMMANDS_PER_DAY,
    syncsPerHour: SYNCS_PER_HOUR,
    lanFirst: await cloudCost('on'),
    cloudOnly: await cloudCost('off'),
  },
};
writeFileSync(OUTPUT, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
