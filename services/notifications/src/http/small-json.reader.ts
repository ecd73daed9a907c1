import { isUtf8 } from 'node:buffer';
import { AppError } from '@homeops/common';
import type { Request, RequestHandler } from 'express';
import { assertCreateBody } from './json-body-checks.js';

/** Bodies the lean reader takes; bigger or unusual ones go through express.json. */
export const SMALL_JSON_BYTES = 64 * 1024;
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

/** The declared length when the lean reader can take the body: plain UTF-8 JSON, no encoding, at most 64 KiB. */
export function smallJsonLength(req: Request): number | undefined {
  const { headers } = req;
  const type = headers['content-type'];
  if (type === undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  if (!PLAIN_JSON_TYPES.has(type.toLowerCase())) return undefined;
  const declared = headers['content-length'];
  if (declared === undefined || !/^\d{1,6}$/.test(declared)) return undefined;
  const length = Number(declared);
  return length <= SMALL_JSON_BYTES ? length : undefined;
}

/**
 * The common create request (plain JSON, UTF-8, no content encoding, a small Content-Length) read without the
 * generic parser chain (type-is, content-type, raw-body, iconv), which cost more than storing the notification.
 * Same outcomes as express.json: the body, MALFORMED_JSON, or the 400 of a body cut short.
 */
export function readSmallJson(req: Request, next: Parameters<RequestHandler>[2], length: number): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (error?: unknown): void => {
    if (settled) return;
    settled = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    next(error);
  };
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    received += chunk.length;
  };
  const onEnd = (): void => {
    if (received !== length) return settle(badBody('request size did not match content length', 'request.size.invalid'));
    try {
      req.body = parseJsonBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
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
