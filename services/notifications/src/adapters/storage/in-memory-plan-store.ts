import type { Plan, PlanStore, StoredPlan } from '../../domain/plans/plan.js';

const keyOf = (kind: Plan['kind'], key: string) => `${kind}\u0000${key}`;

/** Plans kept in memory: an app built without a store (tests, a library user who plans nothing). */
export class InMemoryPlanStore implements PlanStore {
  private readonly plans = new Map<string, StoredPlan>();

  open(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
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

  put(plan: Plan): Promise<StoredPlan> {
    const stored = { ...structuredClone(plan), version: (this.plans.get(keyOf(plan.kind, plan.key))?.version ?? 0) + 1 } as StoredPlan;
    this.plans.set(keyOf(plan.kind, plan.key), stored);
    return Promise.resolve(structuredClone(stored));
  }

  swap(kind: Plan['kind'], key: string, version: number, next: Plan | undefined): Promise<boolean> {
    const current = this.plans.get(keyOf(kind, key));
    if ((current?.version ?? 0) !== version || (!current && next === undefined)) return Promise.resolve(false);
    if (next === undefined) this.plans.delete(keyOf(kind, key));
    else this.plans.set(keyOf(kind, key), { ...structuredClone(next), version: version + 1 } as StoredPlan);
    return Promise.resolve(true);
  }

  remove(kind: Plan['kind'], key: string): Promise<boolean> {
    return Promise.resolve(this.plans.delete(keyOf(kind, key)));
  }
}
