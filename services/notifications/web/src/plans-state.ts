import { type ApiClient, type ErrorBody, toErrorBody } from '@homeops/web-kit';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Heartbeat, Scheduled } from './types.js';

// Pings from cron and Uptime Kuma come with no event on the stream: the lists are read again this often.
const REFRESH_MS = 30_000;

/** The scheduled sends and heartbeats of the recipients this caller may read; null until read. */
export function usePlans(client: ApiClient, readLock: string | null) {
  const [scheduled, setScheduled] = useState<Scheduled[] | null>(null);
  const [heartbeats, setHeartbeats] = useState<Heartbeat[] | null>(null);
  const [problem, setProblem] = useState<ErrorBody | null>(null);

  const load = useCallback(async () => {
    try {
      const [sends, beats] = await Promise.all([
        client.json<{ scheduled: Scheduled[] }>('GET', '/scheduled'),
        client.json<{ heartbeats: Heartbeat[] }>('GET', '/heartbeats'),
      ]);
      setScheduled(sends.body.scheduled);
      setHeartbeats(beats.body.heartbeats);
      setProblem(null);
    } catch (error) {
      if (!client.keyNeeded) setProblem(toErrorBody(error));
    }
  }, [client]);

  useEffect(() => {
    if (readLock !== null) return;
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [readLock, load]);

  return { scheduled, heartbeats, problem, load };
}
