import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it, vi } from 'vitest';

// Proves the layer rules of eslint.config.js fail: each fixture is linted as the text of a file in the layer it
// breaks (lintText with the path of an existing file, so the type-aware rules see it too); nothing is written.
const root = join(import.meta.dirname, '..');
const LAYERS = {
  domain: 'src/domain',
  http: 'src/http',
  adapters: { notifications: 'src/adapters/storage', 'device-control': 'src/adapters/simulator' },
} as const;
const SERVICES = ['notifications', 'device-control'] as const;
type Service = (typeof SERVICES)[number];

// A lint with type information first builds the service's TypeScript program: seconds on a busy 2-core machine, not
// the 5 s a test gets by default. The programs are built once, in beforeAll; each test then relints one file.
vi.setConfig({ testTimeout: 30_000 });

let eslint: ESLint;
beforeAll(async () => {
  eslint = new ESLint({ cwd: root });
  for (const service of SERVICES) await eslint.lintText('export {};\n', { filePath: fileIn(service, LAYERS.domain) });
}, 180_000);

/** A file of the folder: the fixture is linted as its text. */
function fileIn(service: Service, folder: string): string {
  const dir = join(root, 'services', service, folder);
  const name = readdirSync(dir)
    .filter((entry) => entry.endsWith('.ts') && !entry.endsWith('.d.ts'))
    .sort()[0];
  if (!name) throw new Error(`no TypeScript file in ${dir}`);
  return join(dir, name);
}

async function lint(service: Service, folder: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: fileIn(service, folder) });
  return result!.messages;
}

const restricted = (messages: Linter.LintMessage[]) => messages.filter((m) => m.ruleId === 'no-restricted-imports');

describe.each(SERVICES)('the layer rules in services/%s', (service) => {
  const badDomainImports: Array<[what: string, code: string, says: string]> = [
    ['yaml', "import 'yaml';", 'no vendor package'],
    ['js-yaml', "import 'js-yaml';", 'no vendor package'],
    ['pg', "import 'pg';", 'no vendor package'],
    ['express', "import 'express';", 'no vendor package'],
    ['zod', "import 'zod';", 'no vendor package'],
    ['z from the core entry', "import { z } from '@homeops/common/core';\nexport { z };", 'no vendor package'],
    ['node:fs/promises', "import 'node:fs/promises';", 'no file or network I/O'],
    ['fs', "import 'fs';", 'no file or network I/O'],
    ['node:http', "import 'node:http';", 'no file or network I/O'],
    ['https', "import 'https';", 'no file or network I/O'],
    ['the config', "import '../config.js';", 'config values come in as parameters'],
    ['a file of the service root', "import '../version.js';", 'config values come in as parameters'],
    ['an adapter', `import '../${LAYERS.adapters[service].slice(4)}/x.js';`, 'config values come in as parameters'],
    ['http', "import '../http/x.js';", 'config values come in as parameters'],
    ['the main common entry', "import '@homeops/common';", "through '@homeops/common/core'"],
  ];

  it.each(badDomainImports)('fails a domain file importing %s', async (_what, code, says) => {
    const messages = restricted(await lint(service, LAYERS.domain, code));

    expect(messages).toHaveLength(1);
    expect(messages[0]!.severity).toBe(2);
    expect(messages[0]!.message).toContain(says);
  });

  it('fails a type-only import of a vendor package in a domain file', async () => {
    const messages = restricted(await lint(service, LAYERS.domain, "import type { Pool } from 'pg';\nexport type P = Pool;"));

    expect(messages.map((m) => m.message)).toEqual([expect.stringContaining('no vendor package')]);
  });

  it('fails an http file importing an adapter', async () => {
    const messages = restricted(await lint(service, LAYERS.http, `import '../${LAYERS.adapters[service].slice(4)}/x.js';`));

    expect(messages.map((m) => m.message)).toEqual([expect.stringContaining('http/ reaches adapters only through the domain')]);
  });

  it('fails an adapter importing http', async () => {
    const messages = restricted(await lint(service, LAYERS.adapters[service], "export { x } from '../../http/x.js';"));

    expect(messages.map((m) => m.message)).toEqual([expect.stringContaining('adapters/ never import http/')]);
  });

  it('passes a domain file that imports domain files, the core entry and node:crypto', async () => {
    const code = [
      "import { randomUUID } from 'node:crypto';",
      "import { AppError, type Clock } from '@homeops/common/core';",
      "import type { Thing } from './thing.js';",
      'export type Stamped = { thing: Thing; at: number };',
      'export function assertId(clock: Clock): string {',
      "  if (clock.now() < 0) throw new AppError('VALIDATION_FAILED');",
      '  return randomUUID();',
      '}',
      '',
    ].join('\n');

    expect(await lint(service, LAYERS.domain, code)).toEqual([]);
  });

  it('passes http importing the domain and adapters importing the domain', async () => {
    expect(restricted(await lint(service, LAYERS.http, "import '../domain/x.js';"))).toEqual([]);
    expect(restricted(await lint(service, LAYERS.adapters[service], "import '../../domain/x.js';"))).toEqual([]);
  });
});

describe('the layer rules in a device family folder of services/device-control', () => {
  const family = 'src/families/cover';

  it.each([
    ['its own http', "import '../http/x.js';"],
    ['its own adapters', "import '../adapters/x.js';"],
    ['the service config', "import '../../../config.js';"],
    ['a service adapter', "import '../../../adapters/meross/x.js';"],
  ])('fails a family domain file importing %s', async (_what, code) => {
    const messages = restricted(await lint('device-control', `${family}/domain`, code));

    expect(messages.map((m) => m.message)).toEqual([expect.stringContaining('config values come in as parameters')]);
  });

  it('passes a family domain file importing the service domain and another family domain', async () => {
    const code = "import '../../../domain/x.js';\nimport '../../light/domain/x.js';\nimport './x.js';";

    expect(restricted(await lint('device-control', `${family}/domain`, code))).toEqual([]);
  });

  it('fails a family http file importing an adapter', async () => {
    const http = restricted(await lint('device-control', `${family}/http`, "import '../adapters/x.js';"));

    expect(http.map((m) => m.message)).toEqual([expect.stringContaining('http/ reaches adapters only through the domain')]);
  });
});

describe('the type-aware rules on src/', () => {
  it('fail a floating promise, a promise where a void callback goes, and a switch that misses a case', async () => {
    const code = [
      'async function save(): Promise<void> {}',
      'export function run(kind: "a" | "b", items: string[]): number {',
      '  save();',
      '  items.forEach(async () => save());',
      '  switch (kind) {',
      '    case "a":',
      '      return 1;',
      '  }',
      '  return 0;',
      '}',
      '',
    ].join('\n');

    const rules = (await lint('notifications', LAYERS.domain, code)).map((m) => m.ruleId);

    expect(rules).toEqual([
      '@typescript-eslint/no-floating-promises',
      '@typescript-eslint/no-misused-promises',
      '@typescript-eslint/switch-exhaustiveness-check',
    ]);
  });
});
