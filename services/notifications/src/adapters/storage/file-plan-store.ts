import { readFile } from 'node:fs/promises';
import { writeFileAtomically } from '@homeops/common';
import type { Plan, PlanStore, StoredPlan } from '../../domain/plans/plan.js';

const keyOf = (kind: Plan['kind'], key: string) => `${kind}\u0000${key}`;

/**
 * Scheduled sends and heartbeats of a one-instance service in a JSON file beside the history, read at open and
 * rewritten (temp file, fsync, rename) before each change resolves: what a call acknowledged survives `kill -9`.
 * A file that is not a plan file stops the start and is never overwritten.
 */
export class FilePlanStore implements PlanStore {
  private plans = new Map<string, StoredPlan>();
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  async open(): Promise<void> {
    const text = await readFile(this.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw new Error(`cannot read the plan file ${this.file}: ${err.code ?? err.message}`);
    });
    if (text === undefined) return;
    let parsed: { version?: unknown; plans?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new Error(`the plan file ${this.file} is not JSON; fix or move it (it is never overwritten)`);
    }
    if (parsed.version !== 1 || !Array.isArray(parsed.plans)) throw new Error(`the plan file ${this.file} is not a plan file; fix or move it`);
    this.plans = new Map((parsed.plans as StoredPlan[]).map((plan) => [keyOf(plan.kind, plan.key), plan]));
  }

  async close(): Promise<void> {
    await this.writing;
  }

  list(): Promise<StoredPlan[]> {
    return Promise.resolve([...this.plans.values()].map((plan) => structuredClone(plan)));
  }

  get(kind: Plan['kind'], key: string): Promise<StoredPlan | undefined> {
    const plan = this.plans.get(keyOf(kind, key));
    return Promise.resolve(plan && structuredClone(plan));
  }

  count(): Promise<number> {
    return Promise.resolve(this.plans.size);
  }

  countFor(recipient: string): Promise<number> {
    let count = 0;
    for (const plan of this.plans.values()) if (plan.notification.recipient === recipient) count++;
    return Promise.resolve(count);
  }

  async put(plan: Plan): Promise<StoredPlan> {
    const stored = { ...structuredClone(plan), version: (this.plans.get(keyOf(plan.kind, plan.key))?.version ?? 0) + 1 } as StoredPlan;
    this.plans.set(keyOf(plan.kind, plan.key), stored);
    await this.persist();
    return structuredClone(stored);
  }

  async swap(kind: Plan['kind'], key: string, version: number, next: Plan | undefined): Promise<boolean> {
    const current = this.plans.get(keyOf(kind, key));
    if ((current?.version ?? 0) !== version || (!current && next === undefined)) return false;
    if (next === undefined) this.plans.delete(keyOf(kind, key));
    else this.plans.set(keyOf(kind, key), { ...structuredClone(next), version: version + 1 } as StoredPlan);
    await this.persist();
    return true;
  }

  async remove(kind: Plan['kind'], key: string): Promise<boolean> {
    if (!this.plans.delete(keyOf(kind, key))) return false;
    await this.persist();
    return true;
  }

  /** Writes the whole set as it stands when its turn comes; callers wait for the write that includes their change. */
  private persist(): Promise<void> {
    const next = this.writing.catch(() => {}).then(() => this.write(JSON.stringify({ version: 1, plans: [...this.plans.values()] })));
    this.writing = next;
    return next;
  }

  private write(content: string): Promise<void> {
    return writeFileAtomically(this.file, `${content}\n`);
  }
}
