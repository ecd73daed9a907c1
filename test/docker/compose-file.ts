import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { load } from 'js-yaml';

/** One service of docker-compose.yml, as far as this project uses the Compose specification. */
export interface ComposeService {
  build: { context: string; dockerfile?: string; args?: Record<string, string> };
  volumes: string[];
  environment?: Record<string, string>;
  env_file?: (string | { path: string; required?: boolean })[];
  ports?: string[];
  restart?: string;
  stop_grace_period?: string;
}

const KNOWN_KEYS = new Set(['build', 'volumes', 'environment', 'env_file', 'ports', 'restart', 'stop_grace_period']);

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
  ) {
    const parsed = load(readFileSync(file, 'utf8')) as { name: string; services: Record<string, ComposeService> };
    this.project = parsed.name;
    this.services = parsed.services;
    for (const [name, service] of Object.entries(this.services)) {
      const unknown = Object.keys(service).filter((key) => !KNOWN_KEYS.has(key));
      if (unknown.length > 0) throw new Error(`the Docker test cannot start ${name} with ${unknown.join(', ')} yet`);
    }
  }

  /** The name Compose gives the built image. */
  image(name: string): string {
    return `${this.project}-${name}`;
  }

  buildArgs(name: string): string[] {
    const { build } = this.service(name);
    const context = resolve(join(this.file, '..'), build.context);
    const args = Object.entries(build.args ?? {}).flatMap(([key, value]) => ['--build-arg', `${key}=${value}`]);
    return ['build', '--network', 'host', '-q', '-f', join(context, build.dockerfile ?? 'Dockerfile'), ...args, '-t', this.image(name), context];
  }

  /** `docker run -d` arguments; published ports bind to 127.0.0.1 on the host port `hostPort` picks. */
  runArgs(name: string, container: string, hostPort: (containerPort: number) => number, overrides: ServiceOverrides = {}): string[] {
    const service = this.service(name);
    const args = ['run', '-d', '--name', container];
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
    if (overrides.user) args.push('--user', overrides.user);
    if (overrides.hostNetwork) args.push('--network', 'host');
    else for (const port of service.ports ?? []) {
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
