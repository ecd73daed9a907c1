// Attachment file names, free of vendor and node imports: the server and the dashboard's bundle share them.
import { withoutInvisible } from './text-rules.js';

/** A file name safe to store and to put in a Content-Disposition header: no path, no control, bidi or zero-width characters. */
export function safeFilename(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = withoutInvisible(base).replaceAll('"', '').trim().slice(0, 200);
  return clean === '' || clean === '.' || clean === '..' ? fallback : clean;
}

/** File name extensions of each type an attachment is served as, the usual one first. */
const EXTENSIONS: Record<string, string[]> = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/bmp': ['bmp'],
  'application/pdf': ['pdf'],
  'application/x-pdf': ['pdf'],
  'application/zip': ['zip'],
  'application/x-zip-compressed': ['zip'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['xlsx'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['pptx'],
  'application/vnd.oasis.opendocument.text': ['odt'],
  'application/vnd.oasis.opendocument.spreadsheet': ['ods'],
  'text/plain': ['txt', 'log', 'text'],
  'text/csv': ['csv'],
  'text/markdown': ['md', 'markdown'],
  'application/json': ['json'],
  'text/x-log': ['log', 'txt'],
};

/**
 * The name an attachment is offered under: safe, and ending in an extension of its checked type, so a desktop opens
 * it as what it is (`\u202Etxt.bat` sent as a PNG downloads as `txt.bat.png`). The one rule for the server's
 * Content-Disposition and the dashboard's saved file.
 */
export function downloadFilename(name: string, contentType: string): string {
  const safe = safeFilename(name, 'attachment');
  const extensions = EXTENSIONS[contentType] ?? ['bin'];
  const dot = safe.lastIndexOf('.');
  const extension = dot > 0 ? safe.slice(dot + 1).toLowerCase() : '';
  return extensions.includes(extension) ? safe : `${safe}.${extensions[0]!}`;
}
