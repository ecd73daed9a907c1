// Measured in its own process so RSS is that of a freshly started service holding the history.
import { YamlNotificationRepository } from '../src/adapters/storage/yaml-notification.repository.js';
import { RECIPIENTS } from './storage-bench-data.js';

const repo = new YamlNotificationRepository(process.argv[2]!, { compactOnClose: false });
const started = performance.now();
const cpuBefore = process.cpuUsage();
await repo.open();
const openMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
// CPU time too: on a shared machine the wall time mostly measures the neighbours.
const openCpuMs = (cpu.user + cpu.system) / 1000;
const latencies: number[] = [];
for (let i = 0; i < 2000; i++) {
  const t = performance.now();
  await repo.list(`recipient-${i % RECIPIENTS}`, { limit: 50 });
  latencies.push(performance.now() - t);
}
latencies.sort((a, b) => a - b);
const rssMb = process.memoryUsage().rss / 1024 / 1024;
const { records } = await repo.stats();
await repo.close();
process.stdout.write(JSON.stringify({ records, openMs, openCpuMs, rssMb, listP50Ms: latencies[1000], listP99Ms: latencies[1980] }));
