import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readDotenvFiles, z } from '../src/index.js';

const Schema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  EMAIL: z.email(),
  PASSWORD: z.string().min(8),
  MODE: z.enum(['a', 'b']).default('a'),
});

describe('loadConfig', () => {
  it('parses and coerces a valid environment with defaults', () => {
    const config = loadConfig(Schema, { service: 'svc', env: { EMAIL: 'a@b.co', PASSWORD: 'longenough' } });
    expect(config).toEqual({ PORT: 3000, EMAIL: 'a@b.co', PASSWORD: 'longenough', MODE: 'a' });
  });

  it('reports every problem at once and never echoes a value', () => {
    const secret = 'short7!';
    let error: unknown;
    try {
      loadConfig(Schema, { service: 'svc', env: { PORT: 'eighty', EMAIL: 'not-an-email', PASSWORD: secret, MODE: 'c' } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['PORT', 'EMAIL', 'PASSWORD', 'MODE']) expect(message).toContain(`${name}:`);
    expect((error as ConfigError).problems).toHaveLength(4);
    expect(message).not.toContain(secret);
    expect(message).not.toContain('not-an-email');
  });

  it('reports a missing required variable by name', () => {
    expect(() => loadConfig(Schema, { service: 'svc', env: {} })).toThrow(/EMAIL: .*\n.*PASSWORD: /s);
  });

  it('treats empty values as unset so a copied .env.example works', () => {
    const config = loadConfig(Schema.partial({ EMAIL: true, PASSWORD: true }), {
      service: 'svc',
      env: { EMAIL: '', PASSWORD: '', PORT: '' },
    });
    expect(config.PORT).toBe(3000);
  });

  it('lets the service-specific port variable win over PORT', () => {
    const config = loadConfig(Schema, {
      service: 'svc',
      env: { EMAIL: 'a@b.co', PASSWORD: 'longenough', PORT: '8080', SVC_PORT: '9999' },
      aliases: { PORT: [{ name: 'SVC_PORT', wins: true }] },
    });
    expect(config.PORT).toBe(9999);
  });
});

describe('readDotenvFiles', () => {
  it('reads .env of the working directory over the workspace root', () => {
    const root = mkdtempSync(join(tmpdir(), 'cfg-'));
    const svc = join(root, 'services', 'x');
    writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
    writeFileSync(join(root, '.env'), 'A=root\nB=root\n');
    mkdirSync(svc, { recursive: true });
    writeFileSync(join(svc, '.env'), 'B=service\n');
    expect(readDotenvFiles(svc)).toEqual({ A: 'root', B: 'service' });
  });
});
