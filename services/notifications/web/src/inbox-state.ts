import { type ApiClient, type ErrorBody, toErrorBody } from '@homeops/web-kit';
import { useCallback, useRef, useState } from 'preact/hooks';
import type { Notification } from './types.js';

const PAGE_SIZE = 30;

/** The `before` cursor of a Link rel="next" header. */
export function nextCursor(link: string | null): string | null {
  const target = /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1];
  return target ? new URL(target, location.origin).searchParams.get('before') : null;
}

const newestFirst = (list: Notification[]) => list.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));

/** The loaded pages of one recipient's inbox, newest first, and what changes them. */
export function useInbox(client: ApiClient, recipient: string | null) {
  const [items, setItems] = useState<Notification[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const loading = useRef(false);
  // A page that arrives after the recipient changed is dropped.
  const generation = useRef(0);

  const reset = useCallback(() => {
    generation.current += 1;
    loading.current = false;
    setItems([]);
    setNext(null);
    setLoaded(false);
  }, []);

  const loadPage = useCallback(
    async (before: string | null) => {
      if (recipient === null || loading.current) return;
      loading.current = true;
      const mine = generation.current;
      try {
        const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
        if (before) query.set('before', before);
        const { body, headers } = await client.json<Notification[]>('GET', `/notifications/${encodeURIComponent(recipient)}?${query}`);
        if (mine !== generation.current) return;
        setItems((list) => {
          const merged = [...list, ...body.filter((n) => !list.some((m) => m.id === n.id))];
          // A first page meets what the stream brought while it loaded (reset emptied the list): those are newer.
          return before ? merged : newestFirst(merged);
        });
        setNext(nextCursor(headers.get('Link')));
        setLoaded(true);
        setProblem(null);
      } catch (error) {
        if (mine === generation.current && !client.keyNeeded) setProblem(toErrorBody(error));
      } finally {
        if (mine === generation.current) loading.current = false;
      }
    },
    [client, recipient],
  );

  const upsert = useCallback((n: Notification) => {
    setItems((list) => {
      const at = list.findIndex((m) => m.id === n.id);
      if (at >= 0) return list.map((m, i) => (i === at ? n : m));
      // A new one: in order of creation, newest first.
      const after = list.findIndex((m) => m.createdAt <= n.createdAt);
      return after < 0 ? [...list, n] : [...list.slice(0, after), n, ...list.slice(after)];
    });
  }, []);
  const remove = useCallback((id: string) => setItems((list) => list.filter((m) => m.id !== id)), []);
  const markAllRead = useCallback((readAt: string) => setItems((list) => list.map((m) => (m.read ? m : { ...m, read: true, readAt }))), []);

  return { items, next, loaded, problem, setProblem, reset, loadPage, upsert, remove, markAllRead };
}
