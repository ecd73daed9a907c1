import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isNotFound } from './storage-fs.js';

/** Who holds a lock: enough to tell a live holder from a dead one whose pid was reused (containers restart as pid 1). */
export interface LockOwner {
  pid: number;
  host: string;
  bootId: string;
  startTime: string;
  /** Random per acquisition; empty in files written by older versions. */
  token: string;
}

/** A lock (or marker) file as read: its owner (undefined while being written or unreadable) and a key naming this very file. */
export interface LockFileView {
  owner: LockOwner | undefined;
  key: string;
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return ''; // not Linux, or the process is gone
  }
}

// Field 22 of /proc/<pid>/stat: start time in ticks since boot; differs when a pid has been reused.
function startTimeOf(pid: number): string {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

/** This process, with a fresh token for one acquisition. */
export function newOwner(): LockOwner {
  const pid = process.pid;
  return { pid, host: hostname(), bootId: readProc('/proc/sys/kernel/random/boot_id'), startTime: startTimeOf(pid), token: randomBytes(8).toString('hex') };
}

export function formatOwner(owner: LockOwner): string {
  return `${owner.pid}\n${owner.host}\n${owner.bootId}\n${owner.startTime}\n${owner.token}\n`;
}

function parseOwner(text: string): LockOwner | undefined {
  const [pid, host = '', bootId = '', startTime = '', token = ''] = text.split('\n');
  return Number.isInteger(Number(pid)) && Number(pid) > 0 ? { pid: Number(pid), host, bootId, startTime, token } : undefined;
}

/**
 * Reads a lock file through one handle, so content and inode belong together; undefined when it is gone. The key
 * differs for every file ever written at that path (the inode and the random token), so a marker named after it
 * refers to this file only.
 */
export async function readLockFile(path: string): Promise<LockFileView | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    return isNotFound(error) ? undefined : { owner: undefined, key: '' };
  }
  try {
    const [info, content] = await Promise.all([handle.stat({ bigint: true }), handle.readFile('utf8')]);
    const key = createHash('sha256').update(`${info.dev}:${info.ino}\n`).update(content).digest('hex').slice(0, 32);
    return { owner: parseOwner(content), key };
  } catch {
    return { owner: undefined, key: '' };
  } finally {
    await handle.close();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/**
 * An owner on this host is judged by pid; `liveHere` holds this process's own tokens in use, so an owner with our pid
 * but another token is an earlier process that had our pid. An unreadable owner may still be being written: live.
 */
export function isDeadHere(owner: LockOwner | undefined, liveHere: ReadonlySet<string>): boolean {
  if (owner === undefined) return false;
  const bootId = readProc('/proc/sys/kernel/random/boot_id');
  if (owner.bootId !== '' && bootId !== '' && owner.bootId !== bootId) return true;
  if (owner.pid === process.pid) return !liveHere.has(owner.token);
  if (!isAlive(owner.pid)) return true;
  return owner.startTime !== '' && startTimeOf(owner.pid) !== '' && startTimeOf(owner.pid) !== owner.startTime;
}
