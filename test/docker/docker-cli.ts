import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { eventually, StopWaiting, within } from '../../packages/test-kit/src/index.js';

const execFileAsync = promisify(execFile);

/** Runs the docker CLI; rejects with its stderr when it fails or takes longer than `timeoutMs`. */
export async function docker(args: string[], timeoutMs = 120_000): Promise<string> {
  try {
    const { stdout } = await execFileAsync('docker', args, {
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, DOCKER_BUILDKIT: '0' },
    });
    return stdout.trim();
  } catch (err) {
    const { stderr, message } = err as { stderr?: string; message: string };
    throw new Error(`docker ${args.slice(0, 3).join(' ')} failed: ${stderr?.trim() || message}`);
  }
}

/** What `docker inspect` says of a container's life. */
export interface ContainerState {
  status: string;
  health: string | null;
  exitCode: number;
  restartCount: number;
}

export async function containerState(name: string): Promise<ContainerState> {
  const format = '{{json .State}}|{{.RestartCount}}';
  const [state, restarts] = (await docker(['inspect', '-f', format, name])).split('|');
  const parsed = JSON.parse(state!) as { Status: string; ExitCode: number; Health?: { Status: string } };
  return {
    status: parsed.Status,
    health: parsed.Health?.Status ?? null,
    exitCode: parsed.ExitCode,
    restartCount: Number(restarts),
  };
}

/** Waits for Docker's own HEALTHCHECK to report `healthy`; fails at once when the container dies or restarts. */
export async function waitHealthy(name: string, timeoutMs = 90_000): Promise<void> {
  const restartsBefore = (await containerState(name)).restartCount;
  const failure = async (state: ContainerState) => {
    const logs = await docker(['logs', '--tail', '30', name]).catch(() => '');
    return new StopWaiting(`${name} is ${state.status}/${state.health ?? 'no health'} (restarts ${state.restartCount}):\n${logs}`);
  };
  let last = await containerState(name);
  try {
    await eventually(
      async () => {
        last = await containerState(name);
        if (last.status !== 'running' || last.restartCount > restartsBefore) throw await failure(last);
        return last.health === 'healthy';
      },
      { what: `${name} to be healthy`, timeoutMs, intervalMs: 500 },
    );
  } catch (err) {
    throw err instanceof StopWaiting ? err : await failure(last);
  }
}

/** The user id the container's main process (PID 1) runs as. */
export async function mainProcessUid(name: string): Promise<number> {
  return (await mainProcessPrivileges(name)).uid;
}

/** What the kernel says of the main process's (PID 1) privileges: its uid, no_new_privs and capability sets (hex). */
export async function mainProcessPrivileges(
  name: string,
): Promise<{ uid: number; noNewPrivs: number; capEff: string; capPrm: string; capBnd: string; capAmb: string }> {
  const status = await docker(['exec', name, 'cat', '/proc/1/status']);
  const field = (key: string) => new RegExp(`^${key}:\\s+(\\S+)`, 'm').exec(status)?.[1] ?? '';
  return {
    uid: Number(field('Uid')),
    noNewPrivs: Number(field('NoNewPrivs')),
    capEff: field('CapEff'),
    capPrm: field('CapPrm'),
    capBnd: field('CapBnd'),
    capAmb: field('CapAmb'),
  };
}

/** The key a service generated in its data folder, read as the README says: `docker compose exec -T <service> cat /app/data/api-key`. */
export async function generatedApiKey(name: string): Promise<string> {
  return (await docker(['exec', '-i', name, 'cat', '/app/data/api-key'])).trim();
}

/** `docker stop` with the container's own grace period, failing when it takes more than `withinMs`; ms for the log. */
export async function timedStop(name: string, withinMs = 60_000): Promise<{ ms: number; exitCode: number; logs: string }> {
  const started = performance.now();
  await within(withinMs, `docker stop ${name}`, docker(['stop', name], 60_000));
  const ms = performance.now() - started;
  const { exitCode } = await containerState(name);
  return { ms, exitCode, logs: await docker(['logs', '--tail', '20', name]) };
}
