// What Pushover end-to-end encryption costs a create (issue 35: at least 95 % of an unencrypted recipient's create
// throughput): one notification service with delivery on, against a fake Pushover in its own process that accepts every
// message at once, loaded as `pnpm bench` loads creates (32 connections, the same alert-sized body) in alternating
// rounds to a recipient without and one with an encryption key. Same process, same history, same moment: only the
// recipient differs, and each create is answered after its Pushover send, encryption included.
// Writes bench/results/e2ee-bench.json. Usage: npx -y pnpm@10 exec tsx bench/e2ee.ts   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_SKIP_BUILD=1)
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toEncryptionKey } from '../services/notifications/src/adapters/pushover/field-cipher.js';
import { PushoverProvider } from '../services/notifications/src/adapters/pushover/pushover.provider.js';
import { parseRecipientsFile } from '../services/notifications/src/adapters/pushover/recipient-map.js';
import { sealFields } from '../services/notifications/src/adapters/pushover/seal-fields.js';
import { toPushoverFields } from '../services/notifications/src/adapters/pushover/to-pushover-fields.js';
import type { PushMessage } from '../services/notifications/src/domain/push-provider.js';
import { machineOf, median, runBench } from './ab-report.js';
import { measureThroughput, type LoadResult } from './load.js';
import { freePort, httpGet, installCleanupHandlers, makeTempDir, removeTempDir, spawnNode, stopChild, waitUntilReady } from './processes.js';
import { buildServices, CREATE_BODY, ROOT, startNotifications } from './services.js';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP_SECONDS = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const TARGET = 0.95;
const TOKEN = 'bEnChToKeN00000000000000000001';
const PLAIN_USER = 'bEnChPlAiN00000000000000000001';
const SEALED_USER = 'bEnChSeAlEd0000000000000000001';
const ENCRYPTION_KEY = '3c'.repeat(32);

type Variant = 'plain' | 'sealed';

/**
 * The real PushoverProvider in this process sending the create's message to each recipient against a local server
 * that accepts everything: CPU µs per send (this process's, the tiny server's included), median of alternating
 * batches. The difference is what encryption adds to a delivery, apart from the rest of a create.
 */
async function providerSendMicroseconds(): Promise<Record<Variant, number>> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":1,"request":"r"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const map = parseRecipientsFile(`recipients:\n  plain: ${PLAIN_USER}\n  sealed: { key: ${SEALED_USER}, encryptionKey: ${ENCRYPTION_KEY} }\n`, 'bench');
    const provider = new PushoverProvider({
      apiToken: TOKEN,
      apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      recipients: { recipients: map.recipients, unmapped: 'refuse' },
    });
    const { title, message } = JSON.parse(CREATE_BODY) as { title: string; message: string };
    const batch = async (to: Variant, sends = 400) => {
      const before = process.cpuUsage();
      for (let i = 0; i < sends; i += 2) await Promise.all([0, 1].map(() => provider.send({ title, message, priority: 0, createdAt: startedAtIso, to })));
      const used = process.cpuUsage(before);
      return (used.user + used.system) / sends;
    };
    for (let i = 0; i < 3; i++) for (const variant of ['plain', 'sealed'] as const) await batch(variant);
    const runs: Record<Variant, number[]> = { plain: [], sealed: [] };
    for (let round = 0; round < 12; round++) {
      for (const variant of round % 2 === 0 ? (['plain', 'sealed'] as const) : (['sealed', 'plain'] as const)) runs[variant].push(await batch(variant));
    }
    return { plain: median(runs.plain), sealed: median(runs.sealed) };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
const startedAtIso = new Date().toISOString();

/**
 * The encryption of the create's fields alone, in this process: µs per message, the median of 15 batches. It is what
 * the sealed recipient adds to a create, measured apart from the noise of whole creates on a shared machine.
 */
function sealMicroseconds(): number {
  const { title, message } = JSON.parse(CREATE_BODY) as { title: string; message: string };
  const push: PushMessage = { title, message, priority: 0, createdAt: new Date().toISOString(), to: 'sealed' };
  const key = toEncryptionKey(ENCRYPTION_KEY);
  const seal = () => sealFields(toPushoverFields(push, { retry: 60, expire: 3600 }), key, 'homeops');
  for (let i = 0; i < 5_000; i++) seal();
  const batches = Array.from({ length: 15 }, () => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 2_000; i++) seal();
    return Number(process.hrtime.bigint() - started) / 2_000 / 1_000;
  });
  return median(batches);
}

async function main(): Promise<void> {
  installCleanupHandlers();
  if (process.env.BENCH_SKIP_BUILD !== '1') await buildServices();
  const startedAt = new Date().toISOString();
  const loadStart = loadavg()[0]!;
  const dir = makeTempDir('e2ee');
  const pushoverPort = await freePort();
  const pushover = spawnNode({
    name: 'fake-pushover',
    args: ['--import', 'tsx', 'bench/fake-pushover.child.ts'],
    env: { PORT: String(pushoverPort) },
    cwd: ROOT,
    logFile: join(dir, 'fake-pushover.log'),
  });
  await waitUntilReady(pushover, pushoverPort, '/health', 30_000);
  const recipientsFile = join(dir, 'recipients.yaml');
  writeFileSync(recipientsFile, `recipients:\n  plain: ${PLAIN_USER}\n  sealed: { key: ${SEALED_USER}, encryptionKey: ${ENCRYPTION_KEY} }\n`);
  const service = await startNotifications(join(dir, 'notifications.yaml'), dir, undefined, {
    METRICS: 'off',
    PROVIDER_API_TOKEN: TOKEN,
    PROVIDER_API_URL: `http://127.0.0.1:${pushoverPort}`,
    RECIPIENTS_FILE: recipientsFile,
    UNMAPPED_RECIPIENTS: 'refuse',
  });
  const read = async () => JSON.parse((await httpGet(pushoverPort, '/stats')).body) as { messages: number; encrypted: number };
  // The creates still open when a run ends are sent after it: counted once the fake has seen no message for 300 ms.
  const stats = async () => {
    for (let last = await read(); ;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const now = await read();
      if (now.messages === last.messages) return now;
      last = now;
    }
  };
  try {
    const body = (recipient: Variant) => JSON.stringify({ ...(JSON.parse(CREATE_BODY) as object), recipient });
    const runs: Record<Variant, LoadResult[]> = { plain: [], sealed: [] };
    const sent: Record<Variant, { messages: number; encrypted: number }> = { plain: { messages: 0, encrypted: 0 }, sealed: { messages: 0, encrypted: 0 } };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Variant[] = round % 2 === 0 ? ['plain', 'sealed'] : ['sealed', 'plain'];
      for (const variant of order) {
        const before = await stats();
        const request = { port: service.port, method: 'POST' as const, path: '/notifications', body: body(variant) };
        const run = await measureThroughput(request, CONNECTIONS, SECONDS, WARMUP_SECONDS, service.child.pid);
        if (run.non2xx > 0 || run.errors > 0) throw new Error(`${variant}: ${run.non2xx} non-2xx, ${run.errors} errors (${JSON.stringify(run.statusCodes)})`);
        const after = await stats();
        sent[variant].messages += after.messages - before.messages;
        sent[variant].encrypted += after.encrypted - before.encrypted;
        runs[variant].push(run);
        console.log(`create to the ${variant} recipient: ${run.rps.toFixed(0)} req/s, ${run.serverCpuUsPerRequest?.toFixed(1) ?? '?'} µs CPU per request`);
      }
    }
    if (sent.plain.encrypted !== 0 || sent.sealed.encrypted !== sent.sealed.messages || sent.sealed.messages === 0) {
      throw new Error(`the fake Pushover saw ${JSON.stringify(sent)}: the plain recipient must get no encrypted message, the sealed one only`);
    }
    const rps = (variant: Variant) => runs[variant].map((r) => Math.round(r.rps));
    const cpu = (variant: Variant) => median(runs[variant].map((r) => r.serverCpuUsPerRequest ?? NaN));
    const ratio = median(rps('sealed')) / median(rps('plain'));
    const pairedRatio = median(runs.sealed.map((run, round) => run.rps / runs.plain[round]!.rps));
    const cpuRatio = cpu('plain') / cpu('sealed');
    const sealUs = sealMicroseconds();
    const sendUs = await providerSendMicroseconds();
    const report = {
      command: [
        ...['BENCH_SECONDS', 'BENCH_ROUNDS'].filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`),
        'npx -y pnpm@10 exec tsx bench/e2ee.ts',
      ].join(' '),
      startedAt,
      machine: machineOf(loadStart),
      settings: { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, target: TARGET },
      sentToPushover: sent,
      create: {
        plain: rps('plain'),
        sealed: rps('sealed'),
        cpuUsPerRequest: { plain: cpu('plain'), sealed: cpu('sealed') },
        encryptionCpuUsPerCreate: cpu('sealed') - cpu('plain'),
        sealUsPerMessageInProcess: sealUs,
        ratioFromSealCost: cpu('plain') / (cpu('plain') + sealUs),
        providerSendCpuUsInProcess: sendUs,
        ratioFromSendCost: cpu('plain') / (cpu('plain') + sendUs.sealed - sendUs.plain),
        ratio,
        pairedRatio,
        cpuRatio,
        met: ratio >= TARGET,
      },
    };
    writeFileSync(join(ROOT, 'bench/results/e2ee-bench.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `create to an encrypted recipient: ${(ratio * 100).toFixed(1)} % of an unencrypted one by median req/s (${median(rps('sealed'))} vs ${median(rps('plain'))}), ` +
        `${(pairedRatio * 100).toFixed(1)} % by round, ${(cpuRatio * 100).toFixed(1)} % by server CPU per request ` +
        `(${report.create.encryptionCpuUsPerCreate.toFixed(1)} µs more per create; the encryption alone ${sealUs.toFixed(1)} µs, ` +
        `${(report.create.ratioFromSealCost * 100).toFixed(1)} % of a plain create's CPU; a whole send ${sendUs.plain.toFixed(1)} → ${sendUs.sealed.toFixed(1)} µs, ` +
        `${(report.create.ratioFromSendCost * 100).toFixed(1)} %)${report.create.met ? '' : ' MISSED'}`,
    );
  } finally {
    await stopChild(service.child);
    await stopChild(pushover);
    removeTempDir(dir);
  }
}

runBench(main);
