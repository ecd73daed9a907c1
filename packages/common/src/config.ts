import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import type { z } from 'zod';

/** Raised when the environment does not satisfy a service's config schema; lists every problem, never a value. */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`Invalid configuration for ${service}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** `.env` of the working directory, then of the workspace root; variables already set win over both. */
export function readDotenvFiles(cwd = process.cwd()): Env {
  const files: string[] = [join(cwd, '.env')];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) {
      files.push(join(dir, '.env'));
      break;
    }
    if (dirname(dir) === dir) break;
  }
  const merged: Env = {};
  for (const file of [...new Set(files)].reverse()) {
    if (existsSync(file)) Object.assign(merged, parseDotenv(readFileSync(file)));
  }
  return merged;
}

export interface LoadConfigOptions {
  service: string;
  /** The process environment; tests pass literals. */
  env?: Env;
  /** Read `.env` files (development). Off when `env` is given unless asked. */
  dotenv?: boolean;
  /** A service-specific port variable (e.g. `NOTIFICATIONS_PORT`) that wins over `PORT`. */
  portVariable?: string;
}

/** Parses the environment with the service's schema; throws ConfigError naming every bad variable. */
export function loadConfig<S extends z.ZodType>(schema: S, options: LoadConfigOptions): z.infer<S> {
  const fromFiles = (options.dotenv ?? options.env === undefined) ? readDotenvFiles() : {};
  const env: Env = { ...fromFiles, ...(options.env ?? process.env) };
  for (const [name, value] of Object.entries(env)) if (value === '') delete env[name];
  if (options.portVariable && env[options.portVariable] !== undefined) env.PORT = env[options.portVariable];
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(options.service, problems);
}

/** For entry files: load the config or print the problems and exit non-zero. */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, options: LoadConfigOptions): z.infer<S> {
  try {
    return loadConfig(schema, options);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
