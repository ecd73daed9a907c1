import type { NotificationRecord } from './notification.js';

/** What the live feed of one recipient carries. */
export type NotificationEvent =
  | { type: 'created' | 'read' | 'unread' | 'delivery'; recipient: string; notification: NotificationRecord }
  | { type: 'deleted'; recipient: string; id: string }
  | { type: 'read-all'; recipient: string; updated: number; readAt: string };

type Listener = (event: NotificationEvent) => void;

/** In-process fan-out of domain events to the subscribers of each recipient (the SSE streams). */
export class NotificationEvents {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Calls `listener` for every event of `recipient`; returns the unsubscribe function. */
  subscribe(recipient: string, listener: Listener): () => void {
    let set = this.listeners.get(recipient);
    if (!set) this.listeners.set(recipient, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(recipient);
    };
  }

  publish(event: NotificationEvent): void {
    for (const listener of [...(this.listeners.get(event.recipient) ?? [])]) {
      // A broken subscriber must not fail the request that caused the event.
      try {
        listener(event);
      } catch {
        /* the stream closes itself on write errors */
      }
    }
  }

  /** Number of subscriptions, for /health. */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
