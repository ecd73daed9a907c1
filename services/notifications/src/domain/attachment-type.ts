import { AppError } from '@homeops/common/core';

/** Pushover's attachment limit. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

interface Signature {
  type: string;
  matches: (data: Buffer) => boolean;
  /** Declared types that mean the same bytes. */
  aliases?: string[];
  image?: boolean;
}

const startsWith = (data: Buffer, bytes: number[], offset = 0) => bytes.every((b, i) => data[offset + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const SIGNATURES: Signature[] = [
  { type: 'image/png', image: true, matches: (d) => startsWith(d, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', image: true, aliases: ['image/jpg', 'image/pjpeg'], matches: (d) => startsWith(d, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', image: true, matches: (d) => startsWith(d, ascii('GIF87a')) || startsWith(d, ascii('GIF89a')) },
  { type: 'image/webp', image: true, matches: (d) => startsWith(d, ascii('RIFF')) && startsWith(d, ascii('WEBP'), 8) },
  { type: 'image/bmp', image: true, matches: (d) => startsWith(d, ascii('BM')) && d.length > 14 },
  { type: 'application/pdf', aliases: ['application/x-pdf'], matches: (d) => startsWith(d, ascii('%PDF-')) },
  {
    // Office Open XML and OpenDocument files are ZIP containers; the declared type says which.
    type: 'application/zip',
    aliases: [
      'application/x-zip-compressed',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/vnd.oasis.opendocument.text',
      'application/vnd.oasis.opendocument.spreadsheet',
    ],
    matches: (d) => startsWith(d, [0x50, 0x4b, 0x03, 0x04]),
  },
  {
    type: 'text/plain',
    aliases: ['text/csv', 'text/markdown', 'application/json', 'text/x-log'],
    matches: (d) => isText(d),
  },
];

/** UTF-8 without NUL or other binary control characters: a document a person can read. */
function isText(data: Buffer): boolean {
  if (data.length === 0) return false;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return false;
  }
  for (let i = 0; i < text.length; i++) if (isBinaryControl(text.charCodeAt(i))) return false;
  return true;
}

// Tab, line feed, carriage return, form feed and escape (ANSI colours in logs) occur in text; other controls do not.
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x1b]);
const isBinaryControl = (code: number) => (code < 0x20 && !TEXT_CONTROLS.has(code)) || code === 0x7f;

/** The checked type of an attachment, and whether Pushover can show it inline. */
export interface AttachmentType {
  contentType: string;
  image: boolean;
}

const normalize = (type: string) => type.split(';')[0]!.trim().toLowerCase();

/**
 * Checks the bytes against the declared type: the bytes must be a supported image or document, and a declared
 * type (other than application/octet-stream) must name that format. Resolves the type to store and serve.
 */
export function assertAttachmentType(data: Buffer, declared: string | undefined): AttachmentType {
  if (data.length > MAX_ATTACHMENT_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `The attachment is ${data.length} bytes; the limit is 5 MiB`, {
      solution: 'Send an attachment of at most 5 MiB (5,242,880 bytes)',
    });
  }
  const signature = SIGNATURES.find((s) => s.matches(data));
  if (!signature) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The attachment is not a supported image or document', {
      solution: 'Attach PNG, JPEG, GIF, WebP or BMP images, PDF, plain text, or Office/OpenDocument files',
    });
  }
  const type = declared ? normalize(declared) : 'application/octet-stream';
  const allowed = [signature.type, ...(signature.aliases ?? [])];
  if (type !== 'application/octet-stream' && !allowed.includes(type)) {
    throw new AppError('VALIDATION_FAILED', `The attachment is declared as ${type} but its bytes are ${signature.type}`, {
      details: [{ path: 'body.attachment.contentType', message: `does not match the file's bytes (${signature.type})` }],
    });
  }
  // Images are served as their canonical type; documents keep the more specific declared one (e.g. text/csv).
  const contentType = signature.image || type === 'application/octet-stream' ? signature.type : type;
  return { contentType, image: signature.image === true };
}
