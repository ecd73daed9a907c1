import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CONSUMER_SCRIPT, CONSUMER_TSCONFIG, TYPED_CONSUMER } from './consumer-script.js';

const serviceDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const commonDir = resolve(serviceDir, '../../packages/common');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const work = mkdtempSync(join(tmpdir(), 'notifications-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string, timeout = 90_000): string {
  return execFileSync(command, args, { cwd, timeout, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function pack(dir: string, into: string): string {
  run('npx', ['-y', 'pnpm@10', 'pack', '--pack-destination', into], dir);
  const name = readdirSync(into).find((f) => f.endsWith('.tgz'));
  if (!name) throw new Error(`pnpm pack wrote no tarball for ${dir}`);
  return join(into, name);
}

describe('the packed @homeops/notifications library', () => {
  it('installs outside the workspace, starts App on a free port, creates and lists a notification, and stops', { timeout: 180_000 }, () => {
    run(process.execPath, [tsc, '-b', 'tsconfig.build.json'], serviceDir);
    const tarballs = [commonDir, serviceDir].map((dir, i) => {
      const into = join(work, `tgz-${i}`);
      run('mkdir', ['-p', into], work);
      return pack(dir, into);
    });
    const project = join(work, 'consumer');
    run('mkdir', ['-p', project], work);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], project, 120_000);
    writeFileSync(join(project, 'consumer.mjs'), CONSUMER_SCRIPT);

    const result = JSON.parse(run(process.execPath, ['consumer.mjs'], project, 30_000));

    expect(result.port).toBeGreaterThan(0);
    expect(result.createdStatus).toBe(201);
    expect(result.created).toMatchObject({ recipient: 'ops', title: 'Packed', priority: 1, read: false, delivery: { status: 'skipped' } });
    expect(result.listStatus).toBe(200);
    expect(result.total).toBe('1');
    expect(result.list).toEqual([result.created]);
    expect(result.exports).toEqual(['function', 'function', 23, true, 'function']);

    writeFileSync(join(project, 'typed.ts'), TYPED_CONSUMER);
    writeFileSync(join(project, 'tsconfig.json'), CONSUMER_TSCONFIG);
    expect(() => run(process.execPath, [tsc, '-p', 'tsconfig.json'], project, 60_000)).not.toThrow();
  });
});
