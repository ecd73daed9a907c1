import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComposeFile } from './compose-file.js';
import { docker } from './docker-cli.js';

/** One compose test's project on a fresh host: the file read against an empty project folder, its own network and the containers it starts. */
export interface ComposeProject {
  projectDir: string;
  compose: ComposeFile;
  /** This run's suffix of container and network names, so parallel runs never meet. */
  run: string;
  network: string;
  /** Service (or role) → container name, in the order they started. */
  containers: Record<string, string>;
  /** Removes the containers (last started first) with their volumes, the network and the project folder; ignores what is already gone. */
  remove(): Promise<void>;
}

/**
 * Reads `file` as Compose would in a new folder named after `folderPrefix`, empty but for a `.env` of `dotEnv` when
 * given (what the user writes after `cp .env.example .env`); the test creates `network` and fills `containers`.
 */
export function composeProject(file: string, folderPrefix: string, profiles: string[] = [], dotEnv?: Record<string, string>): ComposeProject {
  const projectDir = mkdtempSync(join(tmpdir(), folderPrefix));
  if (dotEnv)
    writeFileSync(
      join(projectDir, '.env'),
      Object.entries(dotEnv)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
      { mode: 0o600 },
    );
  const compose = new ComposeFile(file, projectDir, profiles);
  const run = `t${process.pid}`;
  const network = `${compose.project}_default_${run}`;
  const containers: Record<string, string> = {};
  const remove = async () => {
    for (const container of Object.values(containers).reverse()) await docker(['rm', '-f', '-v', container]).catch(() => undefined);
    await docker(['network', 'rm', network]).catch(() => undefined);
    rmSync(projectDir, { recursive: true, force: true });
  };
  return { projectDir, compose, run, network, containers, remove };
}
