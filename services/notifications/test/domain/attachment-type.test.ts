import { describe, expect, it } from 'vitest';
import { assertAttachmentType } from '../../src/domain/attachment-type.js';
import { downloadFilename, safeFilename } from '../../src/domain/file-names.js';
import { EXECUTABLE, JPEG, PDF, PNG, TEXT, WEBP } from '../support/files.js';

const ZIP = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(30)]);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('assertAttachmentType', () => {
  it('derives the type from the bytes when none or octet-stream is declared', () => {
    expect(assertAttachmentType(PNG, undefined)).toEqual({ contentType: 'image/png', image: true });
    expect(assertAttachmentType(WEBP, 'application/octet-stream')).toEqual({ contentType: 'image/webp', image: true });
    expect(assertAttachmentType(PDF, undefined)).toEqual({ contentType: 'application/pdf', image: false });
  });

  it('normalizes image aliases and parameters, keeps a specific document type', () => {
    expect(assertAttachmentType(JPEG, 'image/JPG; name=x').contentType).toBe('image/jpeg');
    expect(assertAttachmentType(ZIP, DOCX).contentType).toBe(DOCX);
    expect(assertAttachmentType(Buffer.from('a,b\n1,2\n'), 'text/csv').contentType).toBe('text/csv');
  });

  it('rejects a declared type the bytes contradict', () => {
    expect(() => assertAttachmentType(PNG, 'image/jpeg')).toThrow(/declared as image\/jpeg but its bytes are image\/png/);
    expect(() => assertAttachmentType(TEXT, 'application/pdf')).toThrow(/declared as application\/pdf/);
  });

  it('rejects binary data that is no supported format, including text with NUL bytes', () => {
    expect(() => assertAttachmentType(EXECUTABLE, undefined)).toThrow(/not a supported image or document/);
    expect(() => assertAttachmentType(Buffer.from('abc\u0000def'), 'text/plain')).toThrow(/not a supported/);
    expect(() => assertAttachmentType(Buffer.from([0xc3, 0x28]), 'text/plain')).toThrow(/not a supported/);
  });
});

describe('safeFilename', () => {
  it('drops directories, quotes and control characters, and falls back when nothing is left', () => {
    expect(safeFilename('../../etc/passwd', 'f')).toBe('passwd');
    expect(safeFilename('C:\\Users\\x\\"a"\r\n.png', 'f')).toBe('a.png');
    expect(safeFilename('..', 'fallback')).toBe('fallback');
    expect(safeFilename(undefined, 'fallback')).toBe('fallback');
  });
});

describe('downloadFilename', () => {
  it('keeps a name whose extension fits the checked type, and appends the usual one to any other', () => {
    expect(downloadFilename('report.csv', 'text/csv')).toBe('report.csv');
    expect(downloadFilename('Photo.JPEG', 'image/jpeg')).toBe('Photo.JPEG');
    expect(downloadFilename('\u202Etxt.bat', 'text/plain')).toBe('txt.bat.txt');
    expect(downloadFilename('\u202Etxt.bat', 'image/png')).toBe('txt.bat.png');
    expect(downloadFilename('..', 'application/x-unknown')).toBe('attachment.bin');
  });
});
