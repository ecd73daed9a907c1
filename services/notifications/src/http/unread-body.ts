import type { Request, Response } from 'express';

/**
 * For an answer sent before the body was read to its end (too large, malformed, server busy): the rest is not read.
 * The request stops flowing (TCP backpressure holds the sender), the answer says `Connection: close`, and the socket
 * is destroyed once the answer is flushed, instead of being drained to reuse the connection.
 */
export function closeWithoutReading(req: Request, res: Response): void {
  if (req.complete) return;
  req.unpipe();
  req.pause();
  if (!res.headersSent) res.setHeader('Connection', 'close');
  res.once('finish', () => req.socket.destroy());
}
