import type { ApiClient } from './api-client.js';

/** One Server-Sent Event: its type (`event:`), its JSON data and id. */
export interface StreamEvent {
  type: string;
  data: unknown;
  id: string | null;
}

export type StreamState = 'connecting' | 'open' | 'waiting-for-key';

export interface StreamHandlers {
  onEvent(event: StreamEvent): void;
  /** The stream (re)opened: events may have been missed, so reload what is shown. */
  onOpen?(): void;
  onState?(state: StreamState): void;
}

/**
 * An event stream read with fetch and a stream reader, not EventSource, so it carries the API key as a header.
 * Reconnects after the server's `retry:` delay (3 s by default) until closed; answers the close function.
 */
export function openEventStream(client: ApiClient, path: string, handlers: StreamHandlers): () => void {
  const abort = new AbortController();
  let retryMs = 3_000;
  const run = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      handlers.onState?.('connecting');
      try {
        const response = await client.fetch(path, { headers: { Accept: 'text/event-stream' }, signal: abort.signal });
        if (response.status === 401) {
          handlers.onState?.('waiting-for-key');
          return;
        }
        if (response.ok && response.body) {
          handlers.onState?.('open');
          handlers.onOpen?.();
          await readEvents(response.body, handlers.onEvent, (ms) => (retryMs = ms));
        }
      } catch {
        // A dropped connection or an abort: try again below unless closed.
      }
      if (abort.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  void run();
  return () => abort.abort();
}

async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (event: StreamEvent) => void, onRetry: (ms: number) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseBlock(block, onRetry);
      if (event) onEvent(event);
      end = buffer.indexOf('\n\n');
    }
  }
}

function parseBlock(block: string, onRetry: (ms: number) => void): StreamEvent | null {
  let type = 'message';
  let id: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  }
  if (data.length === 0) return null;
  try {
    return { type, id, data: JSON.parse(data.join('\n')) as unknown };
  } catch {
    return null;
  }
}
