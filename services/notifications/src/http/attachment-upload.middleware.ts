import { AppError } from '@homeops/common';
import type { Request, RequestHandler, Response } from 'express';
import { ByteBudget } from './byte-budget.js';
import { CREATE_JSON_MAX_BYTES, jsonTooLarge, readLargeJson } from './large-json.reader.js';
import { attachmentTooLarge, MULTIPART_MAX_BYTES, readMultipart } from './multipart.reader.js';
import { isPlainJson, readPlainJson } from './plain-json.reader.js';
import { closeWithoutReading } from './unread-body.js';

/**
 * Large create bodies held at once, counted in body bytes: room for one body at the JSON limit, smaller ones beside
 * it. What adds resident memory is mostly garbage not yet collected, so it grows with what is parsed at once
 * (bench/large-creates.ts, 30 concurrent 7 MB creates: 32 MiB added 142-216 MB, 16 MiB 122-156 MB in about 1 s,
 * 8 MiB 92-103 MB in 1.4-2.8 s; the target is 150). Shared by every app in the process, as the memory is.
 */
export const largeBodyBudget = new ByteBudget({ capacity: 8 * 1024 * 1024, maxWaitMs: 30_000 });

/** Bodies this small are read at once, without waiting for a share of the budget. */
const SMALL_BODY_BYTES = 64 * 1024;

// Exactly the path Express (strict, case-sensitive routing) sends to the create handler; the plain URL first: req.path parses it.
const isCreate = (req: Request) => req.method === 'POST' && (req.url === '/notifications' || req.path === '/notifications');

interface BodyReader {
  maxBytes: number;
  tooLarge: () => AppError;
  read: (req: Request, res: Response, next: Parameters<RequestHandler>[2]) => void;
}

const PLAIN_JSON: BodyReader = {
  maxBytes: CREATE_JSON_MAX_BYTES,
  tooLarge: jsonTooLarge,
  read: (req, _res, next) => readPlainJson(req, next, Number(req.headers['content-length'])),
};
const MULTIPART: BodyReader = { maxBytes: MULTIPART_MAX_BYTES, tooLarge: attachmentTooLarge, read: readMultipart };
const LARGE_JSON: BodyReader = { maxBytes: CREATE_JSON_MAX_BYTES, tooLarge: jsonTooLarge, read: readLargeJson };

function readerOf(req: Request): BodyReader {
  if (isPlainJson(req)) return PLAIN_JSON;
  if (req.is('multipart/form-data')) return MULTIPART;
  if (req.is(['application/json', 'application/*+json']) === false) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `POST /notifications takes JSON or multipart/form-data, not ${req.headers['content-type']}`, {
      solution: 'Send Content-Type: application/json, or multipart/form-data with the file as a part',
    });
  }
  return LARGE_JSON;
}

/** The bytes a body may bring into memory: its declared length, or the reader's limit when chunked or compressed. */
function expectedBytes(req: Request, reader: BodyReader): number {
  const { headers } = req;
  const encoded = headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity';
  if (headers['transfer-encoding'] !== undefined || encoded) return reader.maxBytes;
  return Number(headers['content-length'] ?? 0);
}

/** Body parsers of POST /notifications only, so every other route keeps the small default JSON limit. */
export function createBodyParsersWith(budget: ByteBudget): RequestHandler {
  return (req, res, next) => {
    if (!isCreate(req)) return next();
    let reader: BodyReader;
    try {
      reader = readerOf(req);
    } catch (error) {
      closeWithoutReading(req, res);
      return next(error);
    }
    if (Number(req.headers['content-length'] ?? 0) > reader.maxBytes) {
      closeWithoutReading(req, res);
      return next(reader.tooLarge());
    }
    const bytes = expectedBytes(req, reader);
    if (bytes <= SMALL_BODY_BYTES) return reader.read(req, res, next);
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    budget.acquire(bytes, gone.signal).then(
      (release) => {
        if (res.closed) return release();
        res.once('close', release);
        reader.read(req, res, next);
      },
      (error: unknown) => {
        if (gone.signal.aborted) return;
        closeWithoutReading(req, res);
        next(error);
      },
    );
  };
}

/** The create body parsers with the process's budget for large bodies. */
export const createBodyParsers: RequestHandler = createBodyParsersWith(largeBodyBudget);
