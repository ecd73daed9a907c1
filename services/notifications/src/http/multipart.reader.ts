import { AppError } from '@homeops/common';
import busboy from 'busboy';
import type { Request, RequestHandler, Response } from 'express';
import { MAX_ATTACHMENT_BYTES } from '../domain/attachment-type.js';
import { closeWithoutReading } from './unread-body.js';

const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 16 * 1024;
/** The whole multipart body: the file, every field at its limit, and room for part headers and boundaries. */
export const MULTIPART_MAX_BYTES = MAX_ATTACHMENT_BYTES + MAX_FIELDS * MAX_FIELD_BYTES + 192 * 1024;

const NUMBER_FIELDS = new Set(['priority', 'ttl', 'retry', 'expire']);
const BOOLEAN_FIELDS = new Set(['html', 'monospace']);

// Form fields are text; give the ones the schema types as numbers and booleans their JSON shape.
function coerceField(name: string, value: string): unknown {
  if (NUMBER_FIELDS.has(name) && /^-?\d+$/.test(value.trim())) return Number(value);
  if (BOOLEAN_FIELDS.has(name) && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The 413 of an attachment over Pushover's limit. */
export const attachmentTooLarge = () =>
  new AppError('PAYLOAD_TOO_LARGE', 'The attachment is larger than 5 MiB', {
    solution: 'Send an attachment of at most 5 MiB (5,242,880 bytes)',
  });

const malformed = (cause?: unknown) => new AppError('VALIDATION_FAILED', 'Malformed multipart body', cause === undefined ? {} : { cause });

/**
 * Parses a multipart POST /notifications into the JSON shape: the file part becomes `attachment` (base64). The first
 * failure (a part over its limit, too many parts, a malformed body) is answered at once and the rest is not read.
 */
export function readMultipart(req: Request, res: Response, next: Parameters<RequestHandler>[2]): void {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, fileSize: MAX_ATTACHMENT_BYTES },
    });
  } catch (err) {
    closeWithoutReading(req, res);
    next(malformed(err));
    return;
  }
  const body: Record<string, unknown> = {};
  let received = 0;
  let settled = false;
  const settle = (error?: unknown): void => {
    if (settled) return;
    settled = true;
    req.off('data', count);
    if (error !== undefined) {
      // Not destroyed here: this may run inside busboy's own write, which then goes on with the chunk it has.
      closeWithoutReading(req, res);
      return next(error);
    }
    req.body = body;
    next();
  };
  // Every handler runs inside busboy's or the socket's callbacks, where a throw would be uncaught: it settles instead.
  const guarded =
    <A extends unknown[]>(handler: (...args: A) => void) =>
    (...args: A): void => {
      try {
        handler(...args);
      } catch (error) {
        settle(error);
      }
    };
  const count = guarded((chunk: Buffer) => {
    received += chunk.length;
    if (received > MULTIPART_MAX_BYTES) settle(attachmentTooLarge());
  });
  parser.on(
    'field',
    guarded((name: string, value: string, info: busboy.FieldInfo) => {
      if (settled) return;
      if (info.valueTruncated) settle(new AppError('PAYLOAD_TOO_LARGE', `The form field ${name} is too long`));
      else body[name] = coerceField(name, value);
    }),
  );
  parser.on(
    'file',
    guarded((_name: string, file: NodeJS.ReadableStream, info: busboy.FileInfo) => {
      const chunks: Buffer[] = [];
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
      file.on(
        'limit',
        guarded(() => settle(attachmentTooLarge())),
      );
      // A body cut short errors the file stream too; unhandled, that would be an uncaught exception.
      file.on(
        'error',
        guarded(() => settle(malformed())),
      );
      file.on(
        'close',
        guarded(() => {
          if (settled) return;
          body.attachment = { filename: info.filename || 'attachment', contentType: info.mimeType, data: Buffer.concat(chunks).toString('base64') };
        }),
      );
    }),
  );
  parser.on(
    'filesLimit',
    guarded(() => settle(new AppError('VALIDATION_FAILED', 'Send at most one file part'))),
  );
  parser.on(
    'fieldsLimit',
    guarded(() => settle(new AppError('VALIDATION_FAILED', 'Too many form fields'))),
  );
  parser.on(
    'error',
    guarded((err: unknown) => settle(malformed(err))),
  );
  parser.on(
    'close',
    guarded(() => settle()),
  );
  req.on('data', count);
  req.pipe(parser);
}
