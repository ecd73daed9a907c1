import type { Response } from 'express';

/**
 * Answers `body` as JSON with exactly the headers res.json would send, minus the ETag: for responses no client
 * revalidates (a 201 to a POST), Express hashes every body for nothing. Not for GET routes.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
