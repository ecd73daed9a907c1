import { isUtf8 } from 'node:buffer';
import { AppError } from '@homeops/common';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { assertCreateBody } from './json-body-checks.js';
import { closeWithoutReading } from './unread-body.js';
import { settleOnce } from './settle-once.js';

/** Room for a 5 MiB attachment in base64 (4/3 of it) plus the other fields. */
export const CREATE_JSON_MAX_BYTES = 7 * 1024 * 1024;

/** Set by `verify` on a UTF-8 body whose bytes are not valid UTF-8. */
const NOT_UTF8 = Symbol('body is not valid UTF-8');

const bigJson = express.json({
  limit: CREATE_JSON_MAX_BYTES,
  verify: (req, _res, raw) => {
    const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if ((charset === undefined || charset === 'utf-8' || charset === 'utf8') && !isUtf8(raw)) Object.assign(req, { [NOT_UTF8]: true });
  },
});

/** The 413 of a JSON create over its limit. */
export const jsonTooLarge = () =>
  new AppError('PAYLOAD_TOO_LARGE', 'The JSON body is larger than 7 MiB', {
    solution: 'Send at most 7 MiB of JSON (a 5 MiB attachment in base64 and the fields), or the file as multipart/form-data',
  });

/**
 * A JSON create the lean reader does not take (large, chunked, encoded, another charset), through express.json.
 * Its errors, and a chunked body passing the limit, are answered without reading the rest: body-parser itself would
 * read a refused body to its end before answering.
 */
export function readLargeJson(req: Request, res: Response, next: Parameters<RequestHandler>[2]): void {
  let received = 0;
  const settle = settleOnce((error) => {
    req.off('data', count);
    if (error !== undefined) closeWithoutReading(req, res);
    next(error);
  });
  const count = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > CREATE_JSON_MAX_BYTES) settle(jsonTooLarge());
  };
  req.on('data', count);
  // body-parser calls back from the socket's events, where a throw would be uncaught: every outcome settles.
  void bigJson(req, res, (err?: unknown) => {
    if (err !== undefined) return settle(err);
    try {
      assertCreateBody(req.body, (req as unknown as Record<symbol, unknown>)[NOT_UTF8] !== true);
    } catch (error) {
      return settle(error);
    }
    settle();
  });
}
