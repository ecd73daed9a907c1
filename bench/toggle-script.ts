import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { killProcessGroup, trackProcessGroup } from './processes.js';
import type { ToggleResult } from './results.js';

const SERVICE_DIR = fileURLToPath(new URL('../services/device-control/', import.meta.url));
const SCRIPT = 'bench/toggle-latency.ts';

/** The last stdout line that parses as a JSON object (the script's result). */
export function lastJsonObject(stdout: string): Record<string, unknown> | undefined {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const value: unknown = JSON.parse(line.trim());
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not the JSON line
    }
  }
  return undefined;
}

/**
 * The p50 the toggle adds over the emulator's round trip, found by name in the script's JSON: a numeric field
 * whose path says "added"/"overhead" and "p50"/"median" (e.g. `addedP50Ms` or `added.p50Ms`).
 */
export function findAddedP50(value: unknown, path = ''): number | undefined {
  if (typeof value === 'number') {
    const name = path.toLowerCase();
    return /add|overhead|extra|minus|net/.test(name) && /p50|median/.test(name) && !/us$|µs/.test(name) ? value : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = findAddedP50(child, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The same numbers from the script's human-readable summary, for as long as it prints no JSON. */
export function parseToggleText(stdout: string): { addedP50Ms: number | undefined; roundTripP50Ms: number | undefined; serviceP50Ms: number | undefined } {
  const number = (pattern: RegExp) => {
    const match = pattern.exec(stdout);
    return match ? Number(match[1]) : undefined;
  };
  return {
    addedP50Ms: number(/added[^:\n]*p50[^:\n]*:\s*(-?\d+(?:\.\d+)?)\s*ms/i),
    roundTripP50Ms: number(/round trip[^\n]*?p50\s+(\d+(?:\.\d+)?)\s*ms/i),
    serviceP50Ms: number(/toggle\s+p50\s+(\d+(?:\.\d+)?)\s*ms/i),
  };
}

/** Runs device-control's toggle-latency bench (written by its owners) as a child process, if it exists. */
export async function runToggleScript(timeoutMs: number): Promise<ToggleResult> {
  const command = `node --conditions=source --import tsx ${SCRIPT}`;
  if (!existsSync(`${SERVICE_DIR}${SCRIPT}`)) {
    return { status: 'not measured', reason: `services/device-control/${SCRIPT} does not exist yet` };
  }
  // Its own process group, so the emulator or anything else it starts is stopped with it.
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', SCRIPT], {
    cwd: SERVICE_DIR,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const untrack = trackProcessGroup(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killProcessGroup(child);
  }, timeoutMs);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  killProcessGroup(child);
  untrack();
  const json = lastJsonObject(stdout);
  const text = parseToggleText(stdout);
  const added = (json === undefined ? undefined : findAddedP50(json)) ?? text.addedP50Ms;
  const raw = json ?? { ...text, output: stdout.trim().split('\n').slice(-6) };
  const where = `services/device-control/${SCRIPT}`;
  if (timedOut || code !== 0) {
    const why = timedOut ? `stopped after ${timeoutMs / 1000} s` : `exit code ${code}, signal ${signal}`;
    const tail = stderr.trim().split('\n').slice(-5).join(' / ');
    return { status: 'not measured', reason: `${where} failed (${why})${tail ? `: ${tail}` : ''}`, command, raw };
  }
  if (added === undefined) {
    return { status: 'not measured', reason: `${where} printed no added p50 in ms`, command, raw };
  }
  return { status: 'measured', addedP50Ms: added, roundTripP50Ms: text.roundTripP50Ms, serviceP50Ms: text.serviceP50Ms, command, raw };
}
