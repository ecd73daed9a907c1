import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { interpolate } from './docker/compose-file.js';
import { serviceAliases, serviceVariables } from './support/config-variables.js';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Compose {
  services: Record<
    string,
    {
      build: { context: string; dockerfile?: string; args: Record<string, string> };
      environment?: Record<string, string>;
      ports: string[];
      volumes: string[];
      stop_grace_period: string;
      profiles?: string[];
      cap_drop?: string[];
      read_only?: boolean;
      security_opt?: string[];
    }
  >;
}

const exampleVariables = [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
const compose = parse(read('docker-compose.yml')) as Compose;
const services = {
  'device-control': { port: 3000, portVariable: 'DEVICE_CONTROL_PORT', variables: serviceVariables['device-control'] },
  notifications: { port: 9095, portVariable: 'NOTIFICATIONS_PORT', variables: serviceVariables.notifications },
};
// The alias tables' names, NOTIFICATIONS_PORT (read by `pnpm start` only), and POSTGRES_PASSWORD (read by
// docker-compose.postgres.yml, for its database and the instances' STORAGE_URL).
const aliases = [...Object.values(serviceAliases).flat(), 'NOTIFICATIONS_PORT', 'POSTGRES_PASSWORD'];

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

  it('reads in a shell with the recipient map it shows: RECIPIENTS quoted, as a bare `;` would end the line', () => {
    const example = /^# For example: (RECIPIENTS='([^']*)')$/m.exec(read('.env.example'));
    expect(example?.[2]).toContain(';');
    const filled = read('.env.example').replace(/^RECIPIENTS=.*$/m, example![1]!);

    const sourced = spawnSync('/bin/sh', ['-c', 'set -a; eval "$ENV_FILE"; printf %s "$RECIPIENTS"'], {
      env: { PATH: process.env.PATH, ENV_FILE: filled },
      encoding: 'utf8',
      timeout: 10_000,
    });

    expect({ status: sourced.status, stderr: sourced.stderr, value: sourced.stdout }).toEqual({ status: 0, stderr: '', value: example![2] });
  });
});

describe('docker-compose.postgres.yml', () => {
  const file = read('docker-compose.postgres.yml');

  it('has no PostgreSQL password of its own: it refuses to start without POSTGRES_PASSWORD', () => {
    expect(file).toMatch(/\$\{POSTGRES_PASSWORD:\?/);
    expect(file).not.toMatch(/\$\{POSTGRES_PASSWORD(:?-|\})/);
    expect(() => interpolate(file, {})).toThrow(/POSTGRES_PASSWORD/);
    expect(() => interpolate(file, { POSTGRES_PASSWORD: '' })).toThrow(/POSTGRES_PASSWORD/);
  });

  it('gives the password set in .env to the database and to both instances', () => {
    const parsed = parse(interpolate(file, { POSTGRES_PASSWORD: 's3cret-pw' })) as Compose;

    expect(parsed.services.postgres?.environment?.POSTGRES_PASSWORD).toBe('s3cret-pw');
    for (const name of ['notifications-1', 'notifications-2']) {
      expect(parsed.services[name]?.environment?.STORAGE_URL, name).toBe('postgres://homeops:s3cret-pw@postgres:5432/notifications');
    }
  });
});

describe('docker-compose.yml', () => {
  const dockerfile = read('Dockerfile');

  it('runs exactly the two services, and Mosquitto only with the mqtt profile', () => {
    const byDefault = Object.entries(compose.services).filter(([, service]) => !service.profiles);
    expect(byDefault.map(([name]) => name).sort()).toEqual(Object.keys(services).sort());
    expect(Object.entries(compose.services).filter(([, service]) => service.profiles)).toEqual([
      ['mosquitto', expect.objectContaining({ profiles: ['mqtt'] })],
    ]);
  });

  it('builds Mosquitto locally, reachable on the project network only, locked down, with the mounted config', () => {
    const mosquitto = compose.services.mosquitto!;
    const conf = read('docker/mosquitto/mosquitto.conf');
    expect(mosquitto.build).toEqual({ context: 'docker/mosquitto' });
    expect(read('docker/mosquitto/Dockerfile')).toMatch(/^FROM debian:bookworm-slim$/m);
    expect(read('docker/mosquitto/Dockerfile')).toMatch(/^USER mosquitto$/m);
    expect(read('docker/mosquitto/Dockerfile')).toMatch(/^HEALTHCHECK /m);
    expect(mosquitto.ports).toBeUndefined();
    expect(mosquitto.volumes).toEqual(['./docker/mosquitto/mosquitto.conf:/mosquitto/config/mosquitto.conf:ro']);
    expect(conf).toMatch(/^listener 1883$/m);
    // Anonymous access is acceptable only while the port is published nowhere (checked above).
    expect(conf).toMatch(/^allow_anonymous true$/m);
    expect(conf).toMatch(/^persistence false$/m);
    expect({ capDrop: mosquitto.cap_drop, readOnly: mosquitto.read_only, securityOpt: mosquitto.security_opt }).toEqual({
      capDrop: ['ALL'],
      readOnly: true,
      securityOpt: ['no-new-privileges:true'],
    });
    expect(mosquitto.stop_grace_period).toBe('10s');
  });

  it('leaves the MQTT bridges off unless .env sets MQTT_URL', () => {
    expect(read('.env.example')).toMatch(/^MQTT_URL=$/m);
    for (const name of Object.keys(services)) expect(compose.services[name]!.environment?.MQTT_URL, name).toBeUndefined();
  });

  it('builds every service from one multi-stage Dockerfile whose runtime drops root', () => {
    expect(dockerfile).toMatch(/^FROM .* AS build$/m);
    expect(dockerfile).toMatch(/^VOLUME \/app\/data$/m);
    expect(dockerfile).toMatch(/^EXPOSE \$\{DEFAULT_PORT\}$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*healthcheck\.cjs/m);
    expect(dockerfile).toContain('--filter "@homeops/${SERVICE}..."');
    expect(read('docker/entrypoint.sh')).toMatch(/exec setpriv --reuid=node --regid=node/);
    expect(read('docker/healthcheck.cjs')).toContain('/health');
  });

  for (const [name, expected] of Object.entries(services)) {
    describe(name, () => {
      const service = compose.services[name]!;

      it('is built from the repository root with its own name, port variable and port', () => {
        expect(service.build.context).toBe('.');
        expect(service.build.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
        expect(service.build.args).toEqual({ SERVICE: name, PORT_VARIABLE: expected.portVariable, DEFAULT_PORT: String(expected.port) });
        const pkg = JSON.parse(read(`services/${name}/package.json`)) as { name: string; files?: string[] };
        expect(pkg.name).toBe(`@homeops/${name}`);
        expect(pkg.files).toContain('dist');
      });

      it('publishes the port the service listens on', () => {
        expect(service.ports).toEqual([`0.0.0.0:${expected.port}:${expected.port}`]);
        expect(service.environment?.[expected.portVariable]).toBe(String(expected.port));
      });

      it('sets only variables the service reads', () => {
        for (const variable of Object.keys(service.environment ?? {})) {
          expect([...expected.variables, expected.portVariable], variable).toContain(variable);
          expect(exampleVariables, variable).toContain(variable);
        }
      });

      it('keeps its data under /app/data and has Docker stop it within the default 10 s', () => {
        expect(service.volumes.some((v) => v.endsWith(':/app/data'))).toBe(true);
        expect(service.stop_grace_period).toBe('10s');
      });
    });
  }
});

describe('package.json scripts', () => {
  it('run TypeScript with the source condition, so a fresh clone needs no build to run them', () => {
    // `pnpm bench` imports device-control's sources, which import @homeops/common: without the condition Node looks
    // for packages/common/dist, which only `pnpm build` makes (a fresh clone's `pnpm bench` failed so).
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const tsxRuns = Object.entries(scripts).flatMap(([name, script]) =>
      [...script.matchAll(/\btsx (?!(?:watch )?--conditions=source)[^"&]*/g)].map((m) => `${name}: ${m[0]}`),
    );
    expect(tsxRuns).toEqual([]);
    expect(Object.values(scripts).some((script) => /\btsx --conditions=source bench\/run\.ts/.test(script))).toBe(true);
  });
});
