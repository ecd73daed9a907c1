// 30 concurrent 7 MB creates (a 5 MiB PNG in base64) against the notification service in a child process: how much
// resident memory they add. Run: npx tsx bench/large-creates.ts [--runs N] [--checkout DIR] [--out FILE]; writes
// bench/results/large-creates.json (--checkout: another checkout's service, for an A/B of a change).
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, installCleanupHandlers, makeTempDir, readMemory, removeTempDir, spawnNode, stopChild, waitUntilReady } from './processes.js';
import { ROOT } from './services.js';

const CONCURRENT = 30;
const ATTACHMENT_BYTES = 5 * 1024 * 1024;
const TARGET_ADDED_MB = 150;

/** One create whose attachment is a PNG of `bytes` bytes (PNG signature, then zeros), about 4/3 of it in JSON. */
function largeCreateBody(bytes: number): Buffer {
  const png = Buffer.alloc(bytes, 0);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
  const attachment = { filename: 'camera.png', contentType: 'image/png', data: png.toString('base64') };
  return Buffer.from(JSON.stringify({ recipient: 'bench', title: 'Camera', message: 'Motion at the door', attachment }));
}

/** POST /notifications on its own connection; resolves the status (0 on a network error) and the milliseconds. */
function post(port: number, body: Buffer): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/notifications',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

interface RunResult {
  rssBeforeMb: number;
  peakBeforeMb: number;
  rssAfterMb: number;
  peakAfterMb: number;
  /** Peak resident memory during the creates minus resident memory before them. */
  addedMb: number;
  elapsedMs: number;
  slowestMs: number;
  statuses: Record<string, number>;
}

const round = (n: number) => Math.round(n * 10) / 10;

async function runOnce(body: Buffer, checkout: string): Promise<RunResult> {
  const dir = makeTempDir('large-creates');
  const port = await freePort();
  const child = spawnNode({
    name: 'notifications',
    args: ['--conditions=source', '--import', 'tsx', join(checkout, 'services/notifications/src/main.ts')],
    env: { PORT: String(port), HOST: '127.0.0.1', STORAGE_PATH: join(dir, 'notifications.yaml'), LOG_LEVEL: 'warn' },
    cwd: checkout,
    logFile: join(dir, 'notifications.log'),
  });
  try {
    await waitUntilReady(child, port, '/health', 60_000, (res) => res.status > 0);
    // One create of each size first, so what is loaded once (code, the first attachment folder) is in "before".
    const small = await post(port, Buffer.from('{"recipient":"bench","message":"warm up"}'));
    const large = await post(port, body);
    if (small.status !== 201 || large.status !== 201) throw new Error(`warm-up creates answered ${small.status} and ${large.status}`);
    const before = readMemory(child.pid)!;
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: CONCURRENT }, () => post(port, body)));
    const elapsedMs = performance.now() - started;
    const after = readMemory(child.pid)!;
    const statuses: Record<string, number> = {};
    for (const { status } of results) statuses[status] = (statuses[status] ?? 0) + 1;
    return {
      rssBeforeMb: round(before.rssMb),
      peakBeforeMb: round(before.peakRssMb),
      rssAfterMb: round(after.rssMb),
      peakAfterMb: round(after.peakRssMb),
      addedMb: round(after.peakRssMb - before.rssMb),
      elapsedMs: Math.round(elapsedMs),
      slowestMs: Math.round(Math.max(...results.map((r) => r.ms))),
      statuses,
    };
  } finally {
    await stopChild(child);
    removeTempDir(dir);
  }
}

async function main(): Promise<void> {
  installCleanupHandlers();
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      checkout: { type: 'string', default: ROOT },
      out: { type: 'string', default: join(ROOT, 'bench/results/large-creates.json') },
    },
  });
  const body = largeCreateBody(ATTACHMENT_BYTES);
  const runs: RunResult[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const run = await runOnce(body, values.checkout);
    console.log(
      `run ${i + 1}: +${run.addedMb} MB peak RSS (${run.rssBeforeMb} -> peak ${run.peakAfterMb} MB), ${run.elapsedMs} ms, statuses ${JSON.stringify(run.statuses)}`,
    );
    runs.push(run);
  }
  const worstAddedMb = Math.max(...runs.map((r) => r.addedMb));
  const report = {
    checkout: values.checkout,
    what: `${CONCURRENT} concurrent creates of ${(body.length / 1e6).toFixed(2)} MB JSON (a ${ATTACHMENT_BYTES / 1024 / 1024} MiB PNG in base64), provider off, YAML history`,
    measuredAt: new Date().toISOString(),
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGb: round(totalmem() / 2 ** 30) },
    targetAddedMb: TARGET_ADDED_MB,
    worstAddedMb,
    met: worstAddedMb <= TARGET_ADDED_MB && runs.every((r) => r.statuses['201'] === CONCURRENT),
    runs,
  };
  writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`worst: +${worstAddedMb} MB (target ${TARGET_ADDED_MB}); written to ${values.out}`);
}

await main();
