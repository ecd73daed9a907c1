/**
 * GET /devices with 50 (simulated) devices against a bare Express 5 handler that returns the same JSON.
 * Each server runs in its own child process; this process generates the load over keep-alive connections.
 * Run: npx tsx --conditions=source bench/devices-list.bench.ts   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_LOG_LEVEL)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function serveService(): Promise<void> {
  const { createLogger, EventStreamHub, serve } = await import('@homeops/common');
  const { SimulatorCloud } = await import('../src/adapters/simulator/simulator-cloud.adapter.js');
  const { createApp } = await import('../src/app.js');
  const { DeviceService } = await import('../src/domain/device.service.js');
  const { DOMAIN_FAMILIES } = await import('../src/families/index.js');
  const level = (process.env.BENCH_LOG_LEVEL ?? 'info') as 'info';
  // The service as deployed: access log on, written to a sink so the terminal is not the bottleneck.
  const logger = createLogger({ service: 'bench', level, destination: createWriteStream('/dev/null') });
  const cloud = new SimulatorCloud({ extraDevices: 47 });
  const devices = new DeviceService(
    cloud,
    {
      families: DOMAIN_FAMILIES,
      maxMessagesPerMinute: 30,
      syncIntervalSeconds: 0,
      requestTimeoutMs: 1000,
      commandTimeoutMs: 1000,
      backgroundStateReads: false,
    },
    logger,
  );
  await devices.start();
  const app = createApp({ logger, cloud, devices, streams: new EventStreamHub() }, { API_KEY: undefined });
  const running = await serve({ app, port: 0, host: '127.0.0.1', logger });
  answerCpuQueries();
  process.send?.({ port: running.port });
}

async function serveBare(body: unknown): Promise<void> {
  const { default: express } = await import('express');
  const app = express();
  app.get('/devices', (_req, res) => {
    res.json(body);
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  answerCpuQueries();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
}

/** Each server reports its own CPU time on request, a measure the other load on the machine hardly disturbs. */
function answerCpuQueries(): void {
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
}

async function cpuMicros(child: ChildProcess): Promise<number> {
  const reply = once(child, 'message') as Promise<[{ cpu: NodeJS.CpuUsage }]>;
  child.send('cpu');
  const [{ cpu }] = await reply;
  return cpu.user + cpu.system;
}

async function start(role: string, payload?: unknown): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(import.meta.filename, [role], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (payload !== undefined) child.send(payload as object);
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, port: message.port };
}

function get(agent: Agent, port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/devices', agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface RunResult {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU time per request, in microseconds. */
  cpuPerRequest: number;
}

async function load(target: { child: ChildProcess; port: number }, seconds: number): Promise<RunResult> {
  const { port } = target;
  const cpuBefore = await cpuMicros(target.child);
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      const res = await get(agent, port);
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const cpu = (await cpuMicros(target.child)) - cpuBefore;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), cpuPerRequest: cpu / latencies.length };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const service = await start('service');
  const { body } = await get(new Agent(), service.port);
  const devices = JSON.parse(body) as unknown[];
  const bare = await start('bare', JSON.parse(body));
  console.log(`GET /devices: ${devices.length} devices, ${body.length} bytes; ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s each, alternating`);
  const results: Record<'bare' | 'service', RunResult[]> = { bare: [], service: [] };
  await load(bare, 1);
  await load(service, 1);
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [name, target] of [
      ['bare', bare],
      ['service', service],
    ] as const) {
      const result = await load(target, SECONDS);
      results[name].push(result);
      console.log(
        `round ${round} ${name.padEnd(7)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  ` +
          `p99 ${result.p99.toFixed(2)} ms  server CPU ${result.cpuPerRequest.toFixed(0)} µs/request`,
      );
    }
  }
  const bareRps = median(results.bare.map((r) => r.rps));
  const serviceRps = median(results.service.map((r) => r.rps));
  const bareCpu = median(results.bare.map((r) => r.cpuPerRequest));
  const serviceCpu = median(results.service.map((r) => r.cpuPerRequest));
  console.log(
    `median throughput: bare ${bareRps.toFixed(0)} req/s, service ${serviceRps.toFixed(0)} req/s, ratio ${((serviceRps / bareRps) * 100).toFixed(1)}%`,
  );
  console.log(
    `median server CPU: bare ${bareCpu.toFixed(0)} µs/request, service ${serviceCpu.toFixed(0)} µs/request: ` +
      `the service needs ${((serviceCpu / bareCpu) * 100).toFixed(1)}% of the bare handler's CPU, ` +
      `i.e. ${((bareCpu / serviceCpu) * 100).toFixed(1)}% of its throughput when CPU-bound (target >= 80%)`,
  );
  service.child.kill();
  bare.child.kill();
}

const role = process.argv[2];
if (role === 'service') await serveService();
else if (role === 'bare') process.once('message', (body) => void serveBare(body));
else await main();
