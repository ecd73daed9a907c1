import { get, type IncomingMessage } from 'node:http';

/** One parsed Server-Sent Event. */
export interface SseEvent {
  event: string;
  data: unknown;
  id: string | undefined;
}

/** Connects to an event stream on 127.0.0.1 and collects its parsed events until closed; `raw` is the unparsed rest. */
export function subscribeEvents(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ events: SseEvent[]; raw: () => string; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, headers }, (res) => {
      let buffer = '';
      const events: SseEvent[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (const block of buffer.split('\n\n').slice(0, -1)) {
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data), id: /^id: (.+)$/m.exec(block)?.[1] });
        }
        buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2);
      });
      resolve({ events, raw: () => buffer, res });
    });
    req.on('error', reject);
  });
}
