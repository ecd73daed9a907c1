import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ServiceProcess } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';

const serviceDir = fileURLToPath(new URL('../..', import.meta.url));

// In a fresh process: imports `specifier`, then counts the files of the mqtt package Node loaded (it is CommonJS, so
// every one of them is in require's cache).
const PROBE = `
import { createRequire } from 'node:module';
await import(process.argv[1]);
const cache = createRequire(import.meta.url).cache;
process.stdout.write(String(Object.keys(cache).filter((file) => /node_modules\\/mqtt\\//.test(file)).length));
`;

function mqttFilesLoadedBy(specifier: string): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', '--input-type=module', '-e', PROBE, specifier], {
    cwd: serviceDir,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return Number(out);
}

describe('the MQTT bridge when MQTT_URL is unset', () => {
  it('is never loaded: neither the @homeops/common/mqtt entry nor the composition root loads the mqtt package', { timeout: 60_000 }, () => {
    expect(mqttFilesLoadedBy('mqtt')).toBeGreaterThan(0);
    expect(mqttFilesLoadedBy('@homeops/common/mqtt')).toBe(0);
    expect(mqttFilesLoadedBy('./src/compose.ts')).toBe(0);
  });

  it('shows as off in /health', { timeout: 30_000 }, async () => {
    const service = await ServiceProcess.start({ service: 'notifications' });
    try {
      const body = (await (await fetch(`${service.baseUrl}/health`)).json()) as { mqtt: unknown; problems?: string[] };
      expect(body.mqtt).toEqual({ state: 'off', broker: null, lastError: null, since: null });
      expect(JSON.stringify(body.problems ?? [])).not.toContain('MQTT');
    } finally {
      await service.stop();
    }
  });
});
