import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
// The wait helper alone: the global setup runs without the `source` condition, where @homeops/common has no build.
import { eventually } from '@homeops/test-kit/wait';
import pg from 'pg';

const run = promisify(execFile);

/** A throwaway PostgreSQL server on loopback, from Debian's `postgresql` package; never a mock. */
export interface PostgresCluster {
  /** The superuser's URL of the `postgres` database. */
  url: string;
  port: number;
  dir: string;
  /** A fresh empty database; its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown), keeping its data: a database restart is stopServer then startServer. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the server and removes its files; safe to call twice. */
  destroy(): Promise<void>;
}

async function binDir(): Promise<string> {
  const root = '/usr/lib/postgresql';
  const versions = await readdir(root).catch(() => [] as string[]);
  const newest = versions.filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error('PostgreSQL is not installed: apt-get install postgresql (.ci/run installs it when missing)');
  return join(root, newest, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, its programs run as the package's `postgres` user. */
function asOwner(program: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
}

async function waitReady(url: string, timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    { what: 'PostgreSQL to answer', timeoutMs, intervalMs: 100 },
  );
}

const living = new Set<string>();
process.once('exit', () => {
  // A test run that dies must not leave servers behind: kill each postmaster by its pid file.
  for (const data of living) {
    try {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGQUIT');
    } catch {
      /* gone already */
    }
  }
});

/** initdb in a temp dir, then a server on a free 127.0.0.1 port (trust auth: a throwaway test cluster). */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = await binDir();
  const dir = await mkdtemp(join(tmpdir(), 'notifications-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) await chown(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  await run(...asOwner(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']));
  let port = await freePort();
  const pgCtl = (args: string[]) => run(...asOwner(join(bin, 'pg_ctl'), ['-D', data, ...args]), { timeout: 60_000 });
  const startServer = async () => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=64MB -c fsync=on`;
    await pgCtl(['-l', join(dir, 'log'), '-o', options, '-w', 'start']);
    living.add(data);
    await waitReady(url(), 20_000);
  };
  const url = () => `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await startServer();
  } catch {
    // Another process took the port between the probe and the start: once more on a new one.
    port = await freePort();
    await startServer();
  }
  let databases = 0;
  let destroyed = false;
  const stopServer = async () => {
    await pgCtl(['-m', 'fast', '-w', 'stop']).catch(async (err: unknown) => {
      const log = await readFile(join(dir, 'log'), 'utf8').catch(() => '');
      if (!/no server running|PID file .* does not exist/.test(`${(err as Error).message}${log}`)) throw err;
    });
    living.delete(data);
  };
  return {
    get url() {
      return url();
    },
    get port() {
      return port;
    },
    dir,
    async createDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      const client = new pg.Client(url());
      await client.connect();
      try {
        // A small database copies fastest file by file.
        await client.query(`CREATE DATABASE ${name} TEMPLATE template0 STRATEGY FILE_COPY`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stopServer,
    startServer,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await stopServer().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
