import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CJS_CONSUMER, CONSUMER_SCRIPT, CONSUMER_TSCONFIG, TYPED_CONSUMER } from './consumer-script.js';

const serviceDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const work = mkdtempSync(join(tmpdir(), 'notifications-pack-'));
const project = join(work, 'consumer');
let tarball = '';
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string, timeout = 90_000): string {
  return execFileSync(command, args, { cwd, timeout, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

beforeAll(() => {
  tarball = run(process.execPath, [tsx, 'scripts/pack-library.ts', work], serviceDir, 120_000).trim().split('\n').at(-1)!;
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // What a TypeScript app on Node 20 has anyway: @types/node.
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, '@types/node@^20.19.0'], project, 180_000);
}, 300_000);

describe('@homeops/notifications installed from its one tarball into an empty project', () => {
  it('depends on no package of ours, and no shipped file imports @homeops/common', () => {
    const installed = join(project, 'node_modules/@homeops');
    const manifest = JSON.parse(readFileSync(join(installed, 'notifications/package.json'), 'utf8')) as { dependencies: Record<string, string> };

    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith('@homeops/'))).toEqual([]);
    expect(run('ls', [installed], project).trim()).toBe('notifications');
    expect(manifest.dependencies['@types/express']).toBeDefined();
    expect(run('tar', ['xzf', tarball, '-O'], work)).not.toContain('@homeops/common');
  });

  it('starts App with import, creates and lists a notification, and stops', { timeout: 60_000 }, () => {
    writeFileSync(join(project, 'consumer.mjs'), CONSUMER_SCRIPT);

    const result = JSON.parse(run(process.execPath, ['consumer.mjs'], project, 30_000));

    expect(result.port).toBeGreaterThan(0);
    expect(result.createdStatus).toBe(201);
    expect(result.created).toMatchObject({ recipient: 'ops', title: 'Packed', priority: 1, read: false, delivery: { status: 'skipped' } });
    expect(result.listStatus).toBe(200);
    expect(result.total).toBe('1');
    expect(result.list).toEqual([result.created]);
    expect(result.exports).toEqual(['function', 'function', 23, true, 'function']);
    expect(result.dashboard).toEqual([200, true, 200]);
  });

  it('works with require from CommonJS', { timeout: 60_000 }, () => {
    writeFileSync(join(project, 'consumer.cjs'), CJS_CONSUMER);

    const result = JSON.parse(run(process.execPath, ['consumer.cjs'], project, 30_000));

    expect(result).toMatchObject({ createdStatus: 201, total: '1', sounds: 23 });
  });

  it('type-checks a strict TypeScript consumer against the shipped declarations alone (skipLibCheck off)', { timeout: 90_000 }, () => {
    writeFileSync(join(project, 'typed.ts'), TYPED_CONSUMER);
    writeFileSync(join(project, 'tsconfig.json'), CONSUMER_TSCONFIG);

    const check = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8', timeout: 60_000 });

    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
