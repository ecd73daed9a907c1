import { Writable } from 'node:stream';
import { createLogger } from '../src/index.js';

/** A logger whose every line lands in `lines`, for assertions on what was logged. */
export function captureLogger(service = 'test') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ service, level: 'debug', destination });
  return { logger, lines, text: () => lines.join('\n') };
}
