import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ConfigSchema as DeviceControlConfig } from '../services/device-control/src/config.js';
import { ConfigSchema as NotificationsConfig } from '../services/notifications/src/config.js';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Compose {
  services: Record<
    string,
    { build: { context: string; dockerfile: string }; environment?: Record<string, string>; ports: string[]; volumes: string[] }
  >;
}

/** The variable names a service's config schema reads, found through its preprocess/transform wrappers. */
function schemaVariables(schema: unknown): string[] {
  const seen = new Set<unknown>();
  const visit = (node: unknown): string[] => {
    if (!node || typeof node !== 'object' || seen.has(node)) return [];
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return [];
    if (def.type === 'object') return Object.keys(def.shape as object);
    return [def.in, def.out, def.innerType, def.schema].flatMap(visit);
  };
  return visit(schema);
}

const exampleVariables = [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
const compose = load(read('docker-compose.yml')) as Compose;
const services = {
  'device-control': { port: 3000, portVariable: 'DEVICE_CONTROL_PORT', variables: schemaVariables(DeviceControlConfig) },
  notifications: { port: 9095, portVariable: 'NOTIFICATIONS_PORT', variables: schemaVariables(NotificationsConfig) },
};
const aliases = ['MEROSS_EMAIL', 'MEROSS_PASSWORD', 'DEVICE_CONTROL_PORT', 'NOTIFICATIONS_PORT'];

describe('.env.example', () => {
  it('lists every variable that a config schema reads', () => {
    for (const { variables } of Object.values(services)) {
      expect(variables.length).toBeGreaterThan(5);
      for (const name of variables) expect(exampleVariables, name).toContain(name);
    }
  });

  it('lists nothing that no service reads', () => {
    const known = new Set([...Object.values(services).flatMap((s) => s.variables), ...aliases]);
    for (const name of exampleVariables) expect(known, name).toContain(name);
  });

  it('leaves every secret empty', () => {
    const secrets = /PASSWORD|TOKEN|KEY|MFA/;
    for (const line of read('.env.example').split('\n')) {
      const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
      if (match && secrets.test(match[1] ?? '')) expect(match[2], match[1]).toBe('');
    }
  });
});

describe('docker-compose.yml', () => {
  it('runs exactly the two services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(Object.keys(services).sort());
  });

  for (const [name, expected] of Object.entries(services)) {
    describe(name, () => {
      const service = compose.services[name]!;
      const dockerfile = () => read(service.build.dockerfile);

      it('names a Dockerfile that exists, built from the repository root', () => {
        expect(service.build.context).toBe('.');
        expect(existsSync(join(root, service.build.dockerfile))).toBe(true);
      });

      it('publishes the port the service listens on and that the Dockerfile exposes', () => {
        expect(service.ports).toEqual([`${expected.port}:${expected.port}`]);
        expect(service.environment?.[expected.portVariable]).toBe(String(expected.port));
        expect(dockerfile()).toMatch(new RegExp(`^EXPOSE ${expected.port}$`, 'm'));
      });

      it('sets only variables the service reads', () => {
        for (const variable of Object.keys(service.environment ?? {})) {
          expect([...expected.variables, expected.portVariable], variable).toContain(variable);
          expect(exampleVariables, variable).toContain(variable);
        }
      });

      it('keeps data on a volume, runs as a non-root user and checks /health', () => {
        expect(service.volumes.some((v) => v.endsWith(':/app/data'))).toBe(true);
        const text = dockerfile();
        expect(text).toMatch(/^USER node$/m);
        expect(text).toMatch(/^VOLUME \/app\/data$/m);
        expect(text).toMatch(/^HEALTHCHECK .*\n.*\/health/m);
        expect(text).toMatch(/^FROM .* AS build$/m);
      });

      it('builds the package that has this name', () => {
        const pkg = JSON.parse(read(`services/${name}/package.json`)) as { name: string; files?: string[] };
        expect(dockerfile()).toContain(`--filter ${pkg.name}...`);
        expect(pkg.files).toContain('dist');
      });
    });
  }
});
