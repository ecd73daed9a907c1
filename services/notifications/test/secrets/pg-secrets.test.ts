import { createLogger } from '@homeops/common';
import { sendRaw } from '@homeops/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '@homeops/common';
import { parseConfig } from '../../src/config.js';
import { makeStorageDir, removeDir, startRealService } from '../hostile/running-service.js';
import { freshDatabase } from '../support/postgres-database.js';

// The throwaway cluster trusts loopback, so any password connects: the secret still travels in every connection.
const PASSWORD = 'pg-Secret-Pw-7731xQ';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

describe('the PostgreSQL password', () => {
  it('never reaches a log line (trace level), a response body, /health or the event stream', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const logger = createLogger({ service: 'notifications', level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
    const dir = await makeStorageDir('notifications-pg-secrets-');
    cleanups.push(() => removeDir(dir));
    const service = await startRealService(dir, { LOG_LEVEL: 'trace', STORAGE_URL: withPassword(await freshDatabase()) }, logger);
    cleanups.push(() => service.stop());
    const seen: string[] = [];
    const send = async (method: string, target: string, body?: object) => {
      const res = await sendRaw(service.port, {
        method,
        target,
        headers: body ? [['Content-Type', 'application/json']] : [],
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      seen.push(`${res.status} ${JSON.stringify(res.headers)} ${res.body.toString('utf8')}`);
      return res;
    };
    const created = await send('POST', '/notifications', { recipient: 'ops', message: 'hello' });
    expect(created.status).toBe(201);
    await send('GET', '/notifications/ops');
    await send('GET', '/notifications/ops?before=01ARZ3NDEKTSV4RRFFQ69G5FAV');
    const health = await send('GET', '/health');
    expect(JSON.parse(health.body.toString('utf8')).storage).toMatchObject({ engine: 'postgres', writable: true });
    await service.stop();
    cleanups.pop();

    // A database that cannot be reached: the failure names the host, never the password.
    const unreachable = withPassword('postgres://postgres@127.0.0.1:1/nowhere');
    const failed = await startRealService(dir, { STORAGE_URL: unreachable, PG_CONNECT_TIMEOUT_MS: '500' }, logger).then(
      (s) => s.stop().then(() => 'started'),
      (err: Error) => `${err.message} ${String(err.cause ?? '')}`,
    );
    expect(failed).toMatch(/did not answer/);
    let configProblem = '';
    try {
      parseConfig({ STORAGE_URL: `mysql://root:${PASSWORD}@db/x` });
    } catch (err) {
      configProblem = err instanceof ConfigError ? err.message : String(err);
    }
    expect(configProblem).toContain('STORAGE_URL');

    expect(lines.length).toBeGreaterThan(5);
    const captured = { logs: lines.join('\n'), responses: seen.join('\n'), failure: failed, config: configProblem };
    const leaks = Object.entries(captured)
      .filter(([, text]) => text.includes(PASSWORD))
      .map(([where]) => where);
    expect(leaks).toEqual([]);
  });
});
