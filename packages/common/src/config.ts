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
  /** Other names each variable is read under: the one alias mechanism of both services. */
  aliases?: EnvAliases;
}

/**
 * Another name a variable is read under: an older name (used when the variable itself is unset), a service-specific
 * name that `wins` over the shared one (`NOTIFICATIONS_PORT` over `PORT`), taken only `when` its value fits.
 */
export interface EnvAlias {
  name: string;
  wins?: boolean;
  when?: (value: string) => boolean;
}

/** Variable name → its aliases, in order of precedence. */
export type EnvAliases = Readonly<Record<string, ReadonlyArray<string | EnvAlias>>>;

/** The environment with every alias resolved onto its variable's name (winning aliases, the variable, the others); alias names are dropped. */
export function applyEnvAliases(env: Env, aliases: EnvAliases): Env {
  const resolved: Env = { ...env };
  for (const [variable, list] of Object.entries(aliases)) {
    const entries = list.map((entry): EnvAlias => (typeof entry === 'string' ? { name: entry } : entry));
    const order = [...entries.filter((a) => a.wins), { name: variable }, ...entries.filter((a) => !a.wins)];
    const chosen = order.find(({ name, when }) => env[name] !== undefined && (!when || when(env[name])));
    for (const { name } of entries) delete resolved[name];
    if (chosen) resolved[variable] = env[chosen.name];
    else delete resolved[variable];
  }
  return resolved;
}

/** Parses the environment with the service's schema; throws ConfigError naming every bad variable. */
export function loadConfig<S extends z.ZodType>(schema: S, options: LoadConfigOptions): z.infer<S> {
  const fromFiles = (options.dotenv ?? options.env === undefined) ? readDotenvFiles() : {};
  const env: Env = { ...fromFiles, ...(options.env ?? process.env) };
  for (const [name, value] of Object.entries(env)) if (value === '') delete env[name];
  const result = schema.safeParse(options.aliases ? applyEnvAliases(env, options.aliases) : env);
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
