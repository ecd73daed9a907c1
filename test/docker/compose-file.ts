import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';

/** One service of docker-compose.yml, as far as this project uses the Compose specification. */
export interface ComposeService {
  build?: { context: string; dockerfile?: string; args?: Record<string, string> };
  image?: string;
  depends_on?: Record<string, { condition: 'service_started' | 'service_healthy' }>;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number };
  volumes: string[];
  environment?: Record<string, string>;
  env_file?: (string | { path: string; required?: boolean })[];
  ports?: string[];
  restart?: string;
  stop_grace_period?: string;
  cap_add?: string[];
  cap_drop?: string[];
  read_only?: boolean;
  security_opt?: string[];
  tmpfs?: string[];
  profiles?: string[];
}

const KNOWN_KEYS = new Set([
  'build',
  'image',
  'depends_on',
  'healthcheck',
  'volumes',
  'environment',
  'env_file',
  'ports',
  'restart',
  'stop_grace_period',
  'cap_add',
  'cap_drop',
  'read_only',
  'security_opt',
  'tmpfs',
  'profiles',
]);

/** What a test changes, as a compose override file would: more variables, other volume sources, host network. */
export interface ServiceOverrides {
  environment?: Record<string, string>;
  /** Container path → a named volume or an absolute host path, replacing what the file declares there. */
  volumes?: Record<string, string>;
  /** More mounts, `source:target[:mode]`. */
  extraVolumes?: string[];
  hostNetwork?: boolean;
  /** `user:` of a compose override: the container starts as this uid:gid instead of root. */
  user?: string;
  /** The project's network (`docker network create`): the container joins it under its service name, as in Compose. */
  network?: string;
  /** `docker compose run --rm <service> <command…>`: a one-off command in the service's setting, no ports or restarts. */
  oneOff?: string[];
}

/**
 * Compose's variable interpolation: `${NAME}`, `${NAME:-default}` (default also when empty), `${NAME:?message}`
 * (unset or empty is an error, as `docker compose` refuses to start), `$$` for `$`.
 */
export function interpolate(text: string, variables: Record<string, string | undefined>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}/g,
    (whole, name: string | undefined, operator: string | undefined, word: string | undefined) => {
      if (whole === '$$') return '$';
      const value = variables[name!];
      const empty = value === undefined || value === '';
      if (operator === ':?' && empty) throw new Error(`required variable ${name!} is missing a value: ${word ?? ''}`);
      if (operator === ':-' && empty) return word ?? '';
      return value ?? '';
    },
  );
}

function readDotEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null);
  return Object.fromEntries(entries.map((match) => [match[1]!, match[2]!]));
}

/**
 * docker-compose.yml read and turned into `docker build` and `docker run` arguments the way Compose v2 would
 * (Compose v2 is not installable here). A key this reader does not know fails the test instead of being ignored.
 */
export class ComposeFile {
  readonly project: string;
  readonly services: Record<string, ComposeService>;

  constructor(
    private readonly file: string,
    /** Where relative bind mounts and env files resolve: the project folder of a fresh host. */
    private readonly projectDir: string,
    /** `docker compose --profile …`: a service with `profiles` exists only when one of them is given here. */
    profiles: string[] = [],
  ) {
    // Compose reads variables from the shell and from the project folder's .env.
    const variables = { ...readDotEnv(join(projectDir, '.env')), ...process.env };
    const parsed = parse(interpolate(readFileSync(file, 'utf8'), variables)) as { name: string; services: Record<string, ComposeService> };
    this.project = parsed.name;
    this.services = Object.fromEntries(
      Object.entries(parsed.services).filter(([, service]) => !service.profiles || service.profiles.some((profile) => profiles.includes(profile))),
    );
    for (const [name, service] of Object.entries(this.services)) {
      const unknown = Object.keys(service).filter((key) => !KNOWN_KEYS.has(key));
      if (unknown.length > 0) throw new Error(`the Docker test cannot start ${name} with ${unknown.join(', ')} yet`);
    }
  }

  /** The service's image, or the name Compose gives the one it builds. */
  image(name: string): string {
    return this.service(name).image ?? `${this.project}-${name}`;
  }

  /** The services in the order Compose starts them: each after those it depends on. */
  startOrder(): string[] {
    const order: string[] = [];
    const visit = (name: string) => {
      if (order.includes(name)) return;
      for (const dependency of Object.keys(this.service(name).depends_on ?? {})) visit(dependency);
      order.push(name);
    };
    for (const name of Object.keys(this.services)) visit(name);
    return order;
  }

  buildArgs(name: string): string[] {
    const { build } = this.service(name);
    if (!build) throw new Error(`${name} has no build section`);
    const context = resolve(join(this.file, '..'), build.context);
    const args = Object.entries(build.args ?? {}).flatMap(([key, value]) => ['--build-arg', `${key}=${value}`]);
    return ['build', '--network', 'host', '-q', '-f', join(context, build.dockerfile ?? 'Dockerfile'), ...args, '-t', this.image(name), context];
  }

  /** `docker run -d` arguments; published ports bind to 127.0.0.1 on the host port `hostPort` picks. */
  runArgs(name: string, container: string, hostPort: (containerPort: number) => number, overrides: ServiceOverrides = {}): string[] {
    const service = this.service(name);
    const oneOff = overrides.oneOff;
    const args = ['run', oneOff ? '--rm' : '-d', '--name', container];
    for (const entry of service.env_file ?? []) {
      const { path, required = true } = typeof entry === 'string' ? { path: entry } : entry;
      const file = resolve(this.projectDir, path);
      if (existsSync(file) || required) args.push('--env-file', file);
    }
    const environment = { ...service.environment, ...overrides.environment };
    for (const [key, value] of Object.entries(environment)) args.push('-e', `${key}=${value}`);
    for (const volume of service.volumes) {
      const [source, target, mode] = volume.split(':') as [string, string, string?];
      const replaced = overrides.volumes?.[target];
      const resolved = replaced ?? (source.startsWith('.') || isAbsolute(source) ? resolve(this.projectDir, source) : `${this.project}_${source}`);
      args.push('-v', [resolved, target, mode].filter(Boolean).join(':'));
    }
    for (const volume of overrides.extraVolumes ?? []) args.push('-v', volume);
    for (const capability of service.cap_drop ?? []) args.push('--cap-drop', capability);
    for (const capability of service.cap_add ?? []) args.push('--cap-add', capability);
    for (const option of service.security_opt ?? []) args.push('--security-opt', option);
    if (service.read_only) args.push('--read-only');
    for (const mount of service.tmpfs ?? []) args.push('--tmpfs', mount);
    if (overrides.user) args.push('--user', overrides.user);
    if (overrides.network) args.push('--network', overrides.network, '--network-alias', name);
    if (oneOff) return [...args, this.image(name), ...oneOff];
    const health = service.healthcheck;
    if (health) {
      const [kind, ...command] = health.test;
      args.push('--health-cmd', kind === 'CMD-SHELL' ? command.join(' ') : command.join(' '));
      if (health.interval) args.push('--health-interval', health.interval);
      if (health.timeout) args.push('--health-timeout', health.timeout);
      if (health.retries !== undefined) args.push('--health-retries', String(health.retries));
    }
    if (overrides.hostNetwork) args.push('--network', 'host');
    else
      for (const port of service.ports ?? []) {
        const containerPort = Number(port.split(':').at(-1));
        args.push('-p', `127.0.0.1:${hostPort(containerPort)}:${containerPort}`);
      }
    if (service.restart) args.push('--restart', service.restart);
    if (service.stop_grace_period) args.push('--stop-timeout', String(parseSeconds(service.stop_grace_period)));
    args.push(this.image(name));
    return args;
  }

  private service(name: string): ComposeService {
    const service = this.services[name];
    if (!service) throw new Error(`docker-compose.yml has no service ${name}`);
    return service;
  }
}

function parseSeconds(duration: string): number {
  const match = /^(\d+)(s|m)?$/.exec(duration);
  if (!match) throw new Error(`unsupported duration ${duration}`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
}
