import { isUtf8 } from 'node:buffer';
import { AppError } from '@homeops/common';
import busboy from 'busboy';
import express, { type RequestHandler } from 'express';
import { MAX_ATTACHMENT_BYTES } from '../domain/attachment-type.js';

/** Room for a 5 MiB attachment in base64 (4/3 of it) plus the other fields. */
export const CREATE_JSON_LIMIT = '7mb';

const NUMBER_FIELDS = new Set(['priority', 'ttl', 'retry', 'expire']);
const BOOLEAN_FIELDS = new Set(['html', 'monospace']);

// The plain URL first: req.path parses it.
const isCreate = (req: Parameters<RequestHandler>[0]) => req.method === 'POST' && (req.url === '/notifications' || req.path === '/notifications');

// Form fields are text; give the ones the schema types as numbers and booleans their JSON shape.
function coerceField(name: string, value: string): unknown {
  if (NUMBER_FIELDS.has(name) && /^-?\d+$/.test(value.trim())) return Number(value);
  if (BOOLEAN_FIELDS.has(name) && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

const tooLarge = () =>
  new AppError('PAYLOAD_TOO_LARGE', 'The attachment is larger than 5 MiB', {
    solution: 'Send an attachment of at most 5 MiB (5,242,880 bytes)',
  });

/** Parses a multipart POST /notifications into the JSON shape: the file part becomes `attachment` (base64). */
const multipart: RequestHandler = (req, _res, next) => {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: 20, fieldSize: 16 * 1024, fileSize: MAX_ATTACHMENT_BYTES },
    });
  } catch (err) {
    next(new AppError('VALIDATION_FAILED', 'Malformed multipart body', { cause: err }));
    return;
  }
  const body: Record<string, unknown> = {};
  let failure: AppError | undefined;
  let settled = false;
  const finish = (err?: AppError) => {
    if (settled) return;
    settled = true;
    if (err) return next(err);
    req.body = body;
    next();
  };
  const fail = (error: AppError) => (failure ??= error);
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(new AppError('PAYLOAD_TOO_LARGE', `The form field ${name} is too long`));
    else body[name] = coerceField(name, value);
  });
  parser.on('file', (_name, file, info) => {
    const chunks: Buffer[] = [];
    file.on('data', (chunk: Buffer) => chunks.push(chunk));
    file.on('limit', () => fail(tooLarge()));
    // A body cut short errors the file stream too; unhandled, that would be an uncaught exception.
    file.on('error', () => fail(new AppError('VALIDATION_FAILED', 'Malformed multipart body')));
    file.on('close', () => {
      if (failure) return;
      body.attachment = { filename: info.filename || 'attachment', contentType: info.mimeType, data: Buffer.concat(chunks).toString('base64') };
    });
  });
  parser.on('filesLimit', () => fail(new AppError('VALIDATION_FAILED', 'Send at most one file part')));
  parser.on('fieldsLimit', () => fail(new AppError('VALIDATION_FAILED', 'Too many form fields')));
  parser.on('error', (err) => {
    req.unpipe(parser);
    req.resume();
    finish(new AppError('VALIDATION_FAILED', 'Malformed multipart body', { cause: err }));
  });
  parser.on('close', () => finish(failure));
  req.pipe(parser);
};

/** Set by the generic reader's `verify` on a UTF-8 body whose bytes are not valid UTF-8. */
const NOT_UTF8 = Symbol('body is not valid UTF-8');

const bigJson = express.json({
  limit: CREATE_JSON_LIMIT,
  verify: (req, _res, raw) => {
    const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if ((charset === undefined || charset === 'utf-8' || charset === 'utf8') && !isUtf8(raw)) Object.assign(req, { [NOT_UTF8]: true });
  },
});

/**
 * A body with bytes that are not UTF-8 is decoded with U+FFFD in their place, which would pass as text and lose what
 * was sent: a 400 naming the fields that hold such a replacement (the whole body when none does).
 */
function notUtf8(body: unknown): AppError {
  const paths: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (value.includes('\uFFFD')) paths.push(path);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, `${path}.${key}`);
    }
  };
  walk(body, 'body');
  const details = (paths.length > 0 ? paths : ['body']).map((path) => ({ path, message: 'holds bytes that are not valid UTF-8: send text as UTF-8' }));
  return new AppError('VALIDATION_FAILED', 'The request body is not valid UTF-8', { details });
}

/** Bodies the lean reader takes; bigger or unusual ones go through express.json. */
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
  if (!isUtf8(body)) throw notUtf8(parsed);
  return parsed;
}

/**
 * The common create request (plain JSON, UTF-8, no content encoding, a small Content-Length) read without the
 * generic parser chain (type-is, content-type, raw-body, iconv), which cost more than storing the notification.
 * Same outcomes as express.json: the body, MALFORMED_JSON, or the 400 of a body cut short.
 */
function readSmallJson(req: Parameters<RequestHandler>[0], next: Parameters<RequestHandler>[2], length: number): void {
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

function smallJsonLength(req: Parameters<RequestHandler>[0]): number | undefined {
  const { headers } = req;
  const type = headers['content-type'];
  if (type === undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  if (!PLAIN_JSON_TYPES.has(type.toLowerCase())) return undefined;
  const declared = headers['content-length'];
  if (declared === undefined || !/^\d{1,6}$/.test(declared)) return undefined;
  const length = Number(declared);
  return length <= SMALL_JSON_BYTES ? length : undefined;
}

/** Body parsers of POST /notifications only, so every other route keeps the small default JSON limit. */
export const createBodyParsers: RequestHandler = (req, res, next) => {
  if (!isCreate(req)) return next();
  const small = smallJsonLength(req);
  if (small !== undefined) return readSmallJson(req, next, small);
  if (req.is('multipart/form-data')) return multipart(req, res, next);
  if (req.is(['application/json', 'application/*+json']) === false) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `POST /notifications takes JSON or multipart/form-data, not ${req.headers['content-type']}`, {
      solution: 'Send Content-Type: application/json, or multipart/form-data with the file as a part',
    });
  }
  return bigJson(req, res, (err?: unknown) => {
    if (err === undefined && (req as unknown as Record<symbol, unknown>)[NOT_UTF8]) return next(notUtf8(req.body));
    next(err);
  });
};
