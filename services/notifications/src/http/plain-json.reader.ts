import { isUtf8 } from 'node:buffer';
import { AppError } from '@homeops/common';
import type { Request, RequestHandler } from 'express';
import { assertCreateBody } from './json-body-checks.js';
import { settleOnce } from './settle-once.js';

/** Bodies up to this size are read in chunks; larger ones are copied into one buffer of their declared length. */
const SMALL_JSON_BYTES = 64 * 1024;
const PLAIN_JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/** The error body-parser raises for a body cut short, so the error handler answers exactly as it would. */
function badBody(message: string, type: string): Error {
  return Object.assign(new Error(message), { status: 400, statusCode: 400, expose: true, type });
}

// body-parser's JSON (strict) on a whole UTF-8 body: empty is {}, anything but an object or array is malformed.
function parseJsonBody(body: Buffer): unknown {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  let at = 0;
  // JSON whitespace: space, tab, line feed, carriage return.
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\n' || text[at] === '\r')) at++;
  if (text[at] !== '{' && text[at] !== '[') throw new AppError('MALFORMED_JSON');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw new AppError('MALFORMED_JSON');
  }
  assertCreateBody(parsed, isUtf8(body));
  return parsed;
}

/** True when the lean reader can take the body: plain UTF-8 JSON, no encoding, a Content-Length. */
export function isPlainJson(req: Request): boolean {
  const { headers } = req;
  const type = headers['content-type'];
  if (type === undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
  return PLAIN_JSON_TYPES.has(type.toLowerCase()) && headers['content-length'] !== undefined;
}

/**
 * The common create request (plain JSON, UTF-8, no content encoding, a Content-Length within the limit) read without
 * the generic parser chain (type-is, content-type, raw-body, iconv), which cost more than storing a small notification
 * and holds a large body twice (its chunks and their concatenation): a large one is copied into one buffer as it comes.
 * Same outcomes as express.json: the body, MALFORMED_JSON, or the 400 of a body cut short.
 */
export function readPlainJson(req: Request, next: Parameters<RequestHandler>[2], length: number): void {
  const chunks: Buffer[] = [];
  const whole = length > SMALL_JSON_BYTES ? Buffer.allocUnsafe(length) : undefined;
  let received = 0;
  const settle = settleOnce((error) => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    next(error);
  });
  const onData = (chunk: Buffer): void => {
    // Node's parser never passes more than the Content-Length.
    if (whole) chunk.copy(whole, received);
    else chunks.push(chunk);
    received += chunk.length;
  };
  const onEnd = (): void => {
    if (received !== length) return settle(badBody('request size did not match content length', 'request.size.invalid'));
    try {
      req.body = parseJsonBody(whole ?? (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)));
    } catch (error) {
      return settle(error);
    }
    settle();
  };
  // An aborted request always ends in 'close' (its 'error' is only emitted to listeners, and there are none).
  const onClose = (): void => {
    if (!req.complete) settle(badBody('request aborted', 'request.aborted'));
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
}
