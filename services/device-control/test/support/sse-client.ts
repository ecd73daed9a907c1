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

  /** The first event of this type matching the predicate, received before or within `timeoutMs`. */
  async waitFor(event: string, predicate: (data: never) => boolean = () => true, timeoutMs = 2000): Promise<ReceivedEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find((e) => e.event === event && predicate(e.data as never));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no "${event}" event within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async waitForComment(prefix: string, timeoutMs = 2000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.comments.find((c) => c.startsWith(prefix));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no "${prefix}" comment within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.reading;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of body) {
      this.buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        this.parse(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 2);
      }
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
