// Mixed create / list / read / delete load on the built notification service with a large history, for a bounded
// time, sampling its resident memory (VmRSS) every second; writes bench/results/soak-rss.svg and bench/results/soak.json.
// Usage: npx -y pnpm@10 exec tsx bench/soak.ts [stored, default 1000000] [minutes, default 10]
import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { httpCall } from './http-call.js';
import { join } from 'node:path';
import { installCleanupHandlers, makeTempDir, readMemory, removeTempDir, stopChild } from './processes.js';
import { buildServices, ROOT, seedHistory, startNotifications } from './services.js';

const stored = Number(process.argv[2] ?? 1_000_000);
const minutes = Number(process.argv[3] ?? 10);
const WORKERS = 8;
const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });

const call = (port: number, method: string, path: string, body?: object) => httpCall(agent, port, method, path, body);

/**
 * One worker until the deadline: creates (25 %), first pages (35 %), marks read (15 %) and deletes of its own oldest
 * creates (25 %), so the number stored stays about the same and memory should too.
 */
async function worker(port: number, deadline: number, counts: Record<string, number>, mine: string[]): Promise<void> {
  let n = 0;
  while (Date.now() < deadline) {
    const pick = n++ % 20;
    const recipient = `recipient-${n % 20}`;
    let res;
    if (pick < 5) {
      res = await call(port, 'POST', '/notifications', {
        recipient,
        title: `Soak ${n}`,
        message: 'Disk usage on server-12 is above 90 %. Check the old backups.',
      });
      if (res.status === 201) mine.push((JSON.parse(res.text) as { id: string }).id);
    } else if (pick < 12) res = await call(port, 'GET', `/notifications/${recipient}?limit=50`);
    else if (pick < 15 && mine.length > 0) res = await call(port, 'PATCH', `/notifications/${mine[mine.length - 1]}/read`);
    else if (mine.length > 0) res = await call(port, 'DELETE', `/notifications/${mine.shift()}`);
    else continue;
    const key = res.status >= 200 && res.status < 300 ? 'ok' : `status ${res.status}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
}

function svg(samples: Array<{ s: number; rssMb: number }>): string {
  const width = 720;
  const height = 300;
  const pad = 50;
  const maxS = Math.max(1, ...samples.map((p) => p.s));
  const maxMb = Math.max(100, ...samples.map((p) => p.rssMb)) * 1.15;
  const x = (s: number) => pad + ((width - 2 * pad) * s) / maxS;
  const y = (mb: number) => height - pad - ((height - 2 * pad) * mb) / maxMb;
  const path = samples.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.s).toFixed(1)},${y(p.rssMb).toFixed(1)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(maxMb * f));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${pad}" y="20">notifications: resident memory under mixed load, ${stored.toLocaleString('en-US')} stored, ${minutes} min</text>`,
    ...ticks.map((mb) => `<line x1="${pad}" x2="${width - pad}" y1="${y(mb)}" y2="${y(mb)}" stroke="#ddd"/><text x="5" y="${y(mb) + 4}">${mb} MB</text>`),
    `<path d="${path}" fill="none" stroke="#1f6feb" stroke-width="2"/>`,
    `<text x="${width / 2 - 20}" y="${height - 15}">seconds</text>`,
    `</svg>`,
  ].join('\n');
}

installCleanupHandlers();
const dir = makeTempDir('soak-');
try {
  await buildServices();
  const path = join(dir, 'notifications.yaml');
  const seedMs = await seedHistory(path, stored, dir);
  const service = await startNotifications(path, dir);
  const started = Date.now();
  const deadline = started + minutes * 60_000;
  const samples: Array<{ s: number; rssMb: number }> = [];
  const sampler = setInterval(() => {
    const memory = readMemory(service.child.pid);
    if (memory) samples.push({ s: Math.round((Date.now() - started) / 1000), rssMb: Math.round(memory.rssMb) });
  }, 1000);
  const counts: Record<string, number> = {};
  const storedNow = async () =>
    (JSON.parse((await call(service.port, 'GET', '/recipients')).text) as Array<{ total: number }>).reduce((sum, r) => sum + r.total, 0);
  const storedAtStart = await storedNow();
  await Promise.all(Array.from({ length: WORKERS }, () => worker(service.port, deadline, counts, [])));
  clearInterval(sampler);
  const storedAtEnd = await storedNow();
  await stopChild(service.child, 60_000);
  const firstMinute = samples.filter((p) => p.s <= 60).map((p) => p.rssMb);
  const lastMinute = samples.filter((p) => p.s > (minutes - 1) * 60).map((p) => p.rssMb);
  const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length));
  const result = {
    stored,
    minutes,
    seedMs,
    startupMs: Math.round(service.startupMs),
    requests: counts,
    storedAtStart,
    storedAtEnd,
    rssMb: {
      min: Math.min(...samples.map((p) => p.rssMb)),
      max: Math.max(...samples.map((p) => p.rssMb)),
      firstMinuteMean: mean(firstMinute),
      lastMinuteMean: mean(lastMinute),
    },
    samples,
  };
  writeFileSync(join(ROOT, 'bench/results/soak.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(ROOT, 'bench/results/soak-rss.svg'), `${svg(samples)}\n`);
  const { samples: _samples, ...summary } = result;
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  agent.destroy();
  removeTempDir(dir);
}
