import type { Socket } from 'node:net';
import type { Request, Response } from 'express';

/** What still arrives after the answer is read and dropped for this long, or up to this many bytes, then the socket goes. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 1024 * 1024;

/**
 * Once the answer is out, Node closes both directions at once (destroySoon). With the client still sending, its
 * stack then gets a reset, which can erase the answer before the client read it (RFC 9112 §9.6). So this one
 * socket closes in stages: our side first, then what still arrives is dropped for a bounded time and size.
 */
function closeInStages(req: Request, socket: Socket): void {
  socket.destroySoon = () => {
    socket.end();
    let dropped = 0;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
    req.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) socket.destroy();
    });
    req.resume();
  };
}

/**
 * For an answer sent before the body was read to its end (too large, malformed, server busy): the rest is not read.
 * The request stops flowing (TCP backpressure holds the sender), the answer says `Connection: close`, and the socket
 * closes once the answer is flushed, instead of being drained to reuse the connection.
 */
export function closeWithoutReading(req: Request, res: Response): void {
  if (req.complete) return;
  req.unpipe();
  req.pause();
  if (!res.headersSent) res.setHeader('Connection', 'close');
  closeInStages(req, req.socket);
}
