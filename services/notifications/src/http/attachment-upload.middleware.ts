import { AppError } from '@homeops/common';
import type { Request, RequestHandler, Response } from 'express';
import { ByteBudget } from './byte-budget.js';
import { CREATE_JSON_MAX_BYTES, jsonTooLarge, readLargeJson } from './large-json.reader.js';
import { attachmentTooLarge, MULTIPART_MAX_BYTES, readMultipart } from './multipart.reader.js';
import { readSmallJson, smallJsonLength } from './small-json.reader.js';
import { closeWithoutReading } from './unread-body.js';

/**
 * Large create bodies held at once, counted in body bytes: four 7 MiB creates, each with what is parsed from it,
 * measured in bench/large-creates.ts. Shared by every app in the process, as the memory is.
 */
const LARGE_BODIES = new ByteBudget({ capacity: 32 * 1024 * 1024, maxWaitMs: 30_000 });

// Exactly the path Express (strict, case-sensitive routing) sends to the create handler; the plain URL first: req.path parses it.
const isCreate = (req: Request) => req.method === 'POST' && (req.url === '/notifications' || req.path === '/notifications');

interface BodyReader {
  maxBytes: number;
  tooLarge: () => AppError;
  read: (req: Request, res: Response, next: Parameters<RequestHandler>[2]) => void;
}

const MULTIPART: BodyReader = { maxBytes: MULTIPART_MAX_BYTES, tooLarge: attachmentTooLarge, read: readMultipart };
const LARGE_JSON: BodyReader = { maxBytes: CREATE_JSON_MAX_BYTES, tooLarge: jsonTooLarge, read: readLargeJson };

function readerOf(req: Request): BodyReader {
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
    const small = smallJsonLength(req);
    if (small !== undefined) return readSmallJson(req, next, small);
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
    if (bytes === 0) return reader.read(req, res, next);
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
export const createBodyParsers: RequestHandler = createBodyParsersWith(LARGE_BODIES);
