/**
 * What a toggle through the service adds to the cloud's own round trip (p50).
 * The service (src/main.ts, CLOUD_BACKEND=meross, the real meross-cloud) runs in a child process against the
 * in-repo Meross emulator; the baseline is a plain MQTT client, in its own process like the service, sending the
 * same signed SET ToggleX to the same broker and waiting for the SETACK. Samples alternate so drift hits both alike.
 * Run from services/device-control: npx tsx --conditions=source bench/toggle-latency.ts   (BENCH_SAMPLES, BENCH_LOG_LEVEL)
 */
import { fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { createAccount, MerossEmulator, standardDevices } from '../test/emulator/meross-emulator.js';
import { createTestPki } from '../test/emulator/pki.js';
import { EmulatedService } from '../test/e2e/service-process.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 250);
const WARMUP = 20;
const PLUG = 'plug0000000000000000000000000001';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface BaselineTarget {
  host: string;
  userId: string;
  key: string;
  caFile: string;
}

/** A bare app client: one signed SET ToggleX, resolved when the SETACK with the same messageId arrives. */
async function connectBaseline({ host, userId, key, caFile }: BaselineTarget) {
  const replyTopic = `/app/${userId}-bench/subscribe`;
  const client = await mqtt.connectAsync({
    protocol: 'mqtts',
    host,
    port: 2001,
    ca: readFileSync(caFile),
    clientId: `app:${randomBytes(8).toString('hex')}`,
    username: userId,
    password: md5(`${userId}${key}`),
    reconnectPeriod: 0,
  });
  await client.subscribeAsync(replyTopic);
  const waiting = new Map<string, () => void>();
  client.on('message', (_topic, payload) => {
    const id = (JSON.parse(payload.toString()) as { header: { messageId: string } }).header.messageId;
    waiting.get(id)?.();
  });
  let on = false;
  return {
    async toggle(): Promise<void> {
      on = !on;
      const messageId = randomBytes(16).toString('hex');
      const timestamp = Math.floor(Date.now() / 1000);
      const header = {
        from: replyTopic,
        messageId,
        method: 'SET',
        namespace: 'Appliance.Control.ToggleX',
        payloadVersion: 1,
        sign: md5(`${messageId}${key}${timestamp}`),
        timestamp,
      };
      const acked = new Promise<void>((resolve) => waiting.set(messageId, resolve));
      client.publish(`/appliance/${PLUG}/subscribe`, JSON.stringify({ header, payload: { togglex: { channel: 1, onoff: on ? 1 : 0 } } }));
      await acked;
      waiting.delete(messageId);
    },
    close: () => client.endAsync(),
  };
}

function serviceToggle(service: EmulatedService, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${service.baseUrl}/devices/${PLUG}/toggle`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`toggle answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end('{"channel":0}');
  });
}

async function time(work: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The baseline client in a child process: it times each round trip itself and reports it over IPC. */
async function runBaselineChild(): Promise<void> {
  const client = await connectBaseline(JSON.parse(process.env.BENCH_BASELINE ?? '{}') as BaselineTarget);
  process.on('message', (message: string) => {
    if (message === 'sample') void time(() => client.toggle()).then((ms) => process.send?.(ms));
    else void client.close().then(() => process.exit(0));
  });
  process.send?.('ready');
}

function startBaseline(target: BaselineTarget) {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: process.execArgv,
    env: { ...process.env, BENCH_BASELINE: JSON.stringify(target) },
  });
  const next = () => new Promise<unknown>((resolve) => child.once('message', resolve));
  return {
    ready: next(),
    async sample(): Promise<number> {
      const reply = next();
      child.send('sample');
      return (await reply) as number;
    },
    close: () => new Promise((resolve) => child.once('exit', resolve).send('close')),
  };
}

if (process.env.BENCH_BASELINE) {
  await runBaselineChild();
} else {
  await main();
}

async function main(): Promise<void> {
  const pki = createTestPki();
  const workDir = mkdtempSync(join(tmpdir(), 'toggle-bench-'));
  const account = createAccount();
  const emulator = await MerossEmulator.start({ pki, account, devices: standardDevices() });
  const service = await EmulatedService.start({
    apiUrl: emulator.apiUrl,
    account,
    caFile: pki.caFile,
    workDir,
    env: { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', CLOUD_MAX_MESSAGES_PER_HOUR: '3600', CLOUD_MAX_MESSAGES_PER_MINUTE: '600' },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { body } = await service.request('GET', '/devices');
      const list = Array.isArray(body) ? (body as Array<{ uuid: string; controllable: boolean }>) : [];
      if (list.find((d) => d.uuid === PLUG)?.controllable) break;
      if (Date.now() > deadline) throw new Error('the plug never became controllable');
      await new Promise((r) => setTimeout(r, 100));
    }
    const baseline = startBaseline({ host: emulator.host, userId: account.userId, key: account.key, caFile: pki.caFile });
    await baseline.ready;
    const viaService: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
      const s = await time(() => serviceToggle(service, agent));
      const d = await baseline.sample();
      if (i >= WARMUP) {
        viaService.push(s);
        direct.push(d);
      }
    }
    await baseline.close();
    const row = (name: string, v: number[]) => `${name.padEnd(34)} p50 ${percentile(v, 50).toFixed(2)} ms   p90 ${percentile(v, 90).toFixed(2)} ms`;
    console.log(`toggle latency, ${SAMPLES} samples each (${process.version}, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'})`);
    console.log(row('emulator MQTT round trip (bare)', direct));
    console.log(row('POST /devices/:uuid/toggle', viaService));
    console.log(`added by the service (p50 difference): ${(percentile(viaService, 50) - percentile(direct, 50)).toFixed(2)} ms`);
  } finally {
    agent.destroy();
    await service.stop();
    await emulator.stop();
    pki.remove();
    rmSync(workDir, { recursive: true, force: true });
  }
}
