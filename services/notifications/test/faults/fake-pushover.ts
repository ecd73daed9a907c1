import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readForm, startLocalServer, type ParsedForm } from '../pushover/pushover-test-kit.js';

/** How the fake answers one request: an HTTP answer, a connection cut before any answer, or never (not delivered). */
export type FakeAnswer = { status: number; body: object | string } | 'reset' | 'hang';

/** One request the fake received and what it answered. */
export interface FakeExchange {
  form: ParsedForm;
  answer: FakeAnswer;
}

/** Pushover's POST /1/messages.json on 127.0.0.1, answering through `decide`; records every exchange. */
export async function startFakePushover(decide: (form: ParsedForm) => FakeAnswer) {
  const exchanges: FakeExchange[] = [];
  const server = await startLocalServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void readForm({ headers: req.headers, body: Buffer.concat(chunks) }).then(
        (form) => {
          const answer = decide(form);
          exchanges.push({ form, answer });
          if (answer === 'reset') return void req.socket.destroy();
          if (answer === 'hang') return;
          res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/html' : 'application/json' });
          res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
        },
        () => res.writeHead(400).end('{"status":0,"errors":["unreadable form"]}'),
      );
    });
  });
  return {
    url: server.url,
    exchanges,
    close: () => server.close(),
    /** Requests answered 200 for each message text. */
    deliveredCount(message: string): number {
      return exchanges.filter((e) => e.form.fields.message === message && typeof e.answer === 'object' && e.answer.status === 200).length;
    },
  };
}

/** Pushover's answer to an accepted message. */
export const acceptedAnswer = (): FakeAnswer => ({ status: 200, body: { status: 1, request: randomUUID() } });
