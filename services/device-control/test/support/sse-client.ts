import { eventually } from '@homeops/test-kit';

/** One received Server-Sent Event. */
export interface ReceivedEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

/** A fetch-based event-stream reader for tests: waits for events with bounded timeouts. */
export class SseClient {
  readonly events: ReceivedEvent[] = [];
  readonly comments: string[] = [];
  private readonly controller = new AbortController();
  private buffer = '';
  private reading: Promise<void> | undefined;
  private done = false;
  status = 0;
  contentType: string | null = null;

  static async connect(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: client.controller.signal });
    client.status = res.status;
    client.contentType = res.headers.get('content-type');
    if (res.body) client.reading = client.read(res.body).catch(() => undefined);
    return client;
  }

  /** Whether the server ended the stream (or it broke); a close from this side does not count. */
  get ended(): boolean {
    return this.done && !this.controller.signal.aborted;
  }

  /** The first event of this type matching the predicate, received before or within `timeoutMs`. */
  waitFor(event: string, predicate: (data: never) => boolean = () => true, timeoutMs = 2000): Promise<ReceivedEvent> {
    return eventually(() => this.events.find((e) => e.event === event && predicate(e.data as never)), { what: `a "${event}" event`, timeoutMs });
  }

  /** The first comment line starting with `prefix`, received before or within `timeoutMs`. */
  waitForComment(prefix: string, timeoutMs = 2000): Promise<string> {
    return eventually(() => this.comments.find((c) => c.startsWith(prefix)), { what: `a "${prefix}" comment`, timeoutMs });
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.reading;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          this.parse(this.buffer.slice(0, end));
          this.buffer = this.buffer.slice(end + 2);
        }
      }
    } finally {
      this.done = true;
    }
  }

  private parse(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) this.events.push({ event, id, data: JSON.parse(data.join('\n')) });
  }
}
