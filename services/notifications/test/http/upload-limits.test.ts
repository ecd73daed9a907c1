import { connect } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sendRaw } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { buildTestApp, listenOn } from '../support/test-app.js';

const MiB = 1024 * 1024;
const UPLOAD_BYTES = 200 * MiB;
/** The client gives up here: a server that reads on would otherwise take all 200 MB. */
const CLIENT_STOPS_AT = 32 * MiB;

const listen = async (): Promise<number> => listenOn((await buildTestApp()).app);

interface UploadOutcome {
  /** The status line and headers the server sent, if any. */
  head: string;
  /** Body bytes the client handed to its socket when the answer arrived, and when the socket closed or failed. */
  writtenAtAnswer: number | undefined;
  written: number;
  closedByServer: boolean;
}

/**
 * Streams a 200 MB multipart upload (one file part) from a bare socket, 64 KiB at a time, each write waiting for
 * the one before (TCP backpressure). Like a client that does not look at answers, it writes on after the 413, until
 * the server closes the connection or CLIENT_STOPS_AT.
 */
async function streamUpload(port: number, kind: 'multipart' | 'json', framing: 'chunked' | 'declared'): Promise<UploadOutcome> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise((resolve) => socket.once('connect', resolve));
  const multipartHead =
    '--X\r\nContent-Disposition: form-data; name="recipient"\r\n\r\nops\r\n--X\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n';
  const start = Buffer.from(kind === 'multipart' ? multipartHead : '{"recipient":"ops","message":"', 'latin1');
  const type = kind === 'multipart' ? 'multipart/form-data; boundary=X' : 'application/json';
  const length = framing === 'declared' ? [`Content-Length: ${UPLOAD_BYTES}`] : ['Transfer-Encoding: chunked'];
  socket.write(['POST /notifications HTTP/1.1', `Host: 127.0.0.1:${port}`, `Content-Type: ${type}`, ...length, '', ''].join('\r\n'));
  const outcome: UploadOutcome = { head: '', writtenAtAnswer: undefined, written: 0, closedByServer: false };
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    outcome.head += chunk.toString('latin1');
    outcome.writtenAtAnswer ??= outcome.written;
  });
  socket.on('error', () => undefined);
  socket.once('close', () => (closed = true));
  const piece = Buffer.alloc(64 * 1024, kind === 'multipart' ? 0 : 0x61);
  const frame = (data: Buffer) => (framing === 'chunked' ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data);
  let data = Buffer.concat([start, piece]).subarray(0, piece.length);
  while (!closed && outcome.written < CLIENT_STOPS_AT && outcome.written < UPLOAD_BYTES) {
    const ok = await new Promise<boolean>((resolve) => socket.write(frame(data), (err) => resolve(!err)));
    if (!ok) break;
    outcome.written += data.length;
    data = piece;
    // Lets the answer, the end of the stream or the reset be read before the next write.
    await nextTurn();
  }
  outcome.closedByServer = closed || socket.destroyed || socket.readableEnded;
  socket.destroy();
  return outcome;
}

describe('POST /notifications over the body limit', () => {
  it.each([
    ['multipart', 'chunked', 8],
    ['multipart', 'declared', 2],
    ['json', 'chunked', 10],
    ['json', 'declared', 2],
  ] as const)(
    'answers a 200 MB %s upload (%s length) with 413 at once and closes the connection without reading the rest',
    { timeout: 30_000 },
    async (kind, framing, maxMiB) => {
      const port = await listen();

      const outcome = await streamUpload(port, kind, framing);

      console.info(
        `${kind} 200 MB (${framing}): 413 after ${(outcome.writtenAtAnswer ?? NaN) / MiB} MiB written; socket closed after ${outcome.written / MiB} MiB`,
      );
      expect(outcome.head).toMatch(/^HTTP\/1\.1 413 /);
      expect(outcome.head).toMatch(/\r\nconnection: close\r\n/i);
      expect(outcome.head).toContain('"code":"PAYLOAD_TOO_LARGE"');
      expect(outcome.closedByServer).toBe(true);
      expect(outcome.written).toBeLessThan(maxMiB * MiB);
      expect((await sendRaw(port, { method: 'GET', target: '/health' })).status).toBe(200);
    },
  );
});
