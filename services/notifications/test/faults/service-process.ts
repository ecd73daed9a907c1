import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVICE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The service started as `node --conditions=source --import tsx src/main.ts`, as in production but from source. */
export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  base: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code or signal once it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the service with these variables (PORT 0, HOST 127.0.0.1, delivery off unless given) and waits for "listening". */
export function startServiceProcess(env: Record<string, string>, timeoutMs = 15_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/main.ts'], {
    cwd: SERVICE_ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not listen within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      const port = Number(match[1]);
      resolve({
        child,
        port,
        base: `http://127.0.0.1:${port}`,
        output: () => output,
        exited,
        kill: async (signal = 'SIGKILL') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}
