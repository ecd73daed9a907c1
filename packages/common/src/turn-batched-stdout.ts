import { pino, type DestinationStream } from 'pino';

let shared: DestinationStream | undefined;

/**
 * Standard output for pino, written once per event-loop turn: under load the access lines of a whole group commit
 * are logged in the same turn, and one asynchronous write per line cost more CPU than the lines. Lines keep their
 * order; a line waits at most until the end of the current turn, and whatever is waiting at exit is written then.
 * One per process: every logger shares it, so lines of different loggers never interleave mid-line.
 */
export function turnBatchedStdout(): DestinationStream {
  shared ??= create();
  return shared;
}

function create(): DestinationStream {
  const target = pino.destination({ sync: false });
  let pending = '';
  const writePending = (): void => {
    const text = pending;
    pending = '';
    try {
      if (text !== '') target.write(text);
    } catch {
      // Standard output is gone (closed pipe): there is nowhere left to write a log line to.
    }
  };
  process.once('exit', () => {
    writePending();
    try {
      target.flushSync();
    } catch {
      // as above
    }
  });
  return {
    write(line: string) {
      if (pending === '') setImmediate(writePending);
      pending += line;
    },
  };
}
