import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { decodeEncodedWord } from './fake-ntfy.js';

/** A header with encoded words in it, decoded (whitespace between two encoded words dropped, as RFC 2047 says). */
function decodeHeader(value: string): string {
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?[bq]\?[^?]*\?=/gi, decodeEncodedWord);
}

/** One mail the sink received. */
export interface SunkMail {
  from: string | undefined;
  to: string[];
  subject: string | undefined;
  contentType: string | undefined;
  raw: string;
}

/** An SMTP server on 127.0.0.1 (port 0) that keeps every mail; plain SMTP without STARTTLS, login optional. */
export async function startSmtpSink(options: { user?: string; pass?: string } = {}) {
  const mails: SunkMail[] = [];
  const logins: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: options.user === undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(auth.username ?? '');
      if (auth.username === options.user && auth.password === options.pass) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const head = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, ' ');
        const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1];
        const subject = field('Subject');
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: subject === undefined ? undefined : decodeHeader(subject),
          contentType: field('Content-Type'),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return { port, mails, logins, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
