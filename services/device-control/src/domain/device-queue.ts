import type { Priority } from './message-budget.js';

interface Task {
  run: () => Promise<void>;
}

interface Lane {
  running: boolean;
  caller: Task[];
  background: Task[];
}

/**
 * Runs the work for one key strictly one after another (commands to one device), different keys in parallel.
 * Work a caller asked for goes before background work still waiting for the same key.
 */
export class DeviceQueue {
  private readonly lanes = new Map<string, Lane>();

  /** Work queued for `key`; resolves or rejects with the work's own outcome. */
  run<T>(key: string, work: () => Promise<T>, priority: Priority = 'caller'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let lane = this.lanes.get(key);
      if (!lane) {
        lane = { running: false, caller: [], background: [] };
        this.lanes.set(key, lane);
      }
      lane[priority].push({ run: () => Promise.resolve().then(work).then(resolve, reject) });
      this.next(key, lane);
    });
  }

  /** Keys with work pending. */
  get size(): number {
    return this.lanes.size;
  }

  private next(key: string, lane: Lane): void {
    if (lane.running) return;
    const task = lane.caller.shift() ?? lane.background.shift();
    if (!task) {
      this.lanes.delete(key);
      return;
    }
    lane.running = true;
    void task.run().finally(() => {
      lane.running = false;
      this.next(key, lane);
    });
  }
}
