import { describe, expect, it } from 'vitest';
import { createLogger, scalarLogger } from '../src/logger.js';

describe('unredacted twin logger (decision: docs/decisions/unredacted-twin-logger.md)', () => {
  it('writes an access line byte for byte as the redacting logger does, time aside', () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const logger = createLogger({ service: 'twin', level: 'info', destination });
    const line = { reqId: 'r-1', method: 'POST', url: '/notifications?x=1', status: 201, ms: 1.25 };
    for (const level of ['info', 'warn', 'error'] as const) {
      logger[level](line, 'request completed');
      scalarLogger(logger)[level](line, 'request completed');
    }
    expect(lines).toHaveLength(6);
    const withoutTime = (text: string) => text.replace(/"time":\d+,/, '');
    for (let i = 0; i < lines.length; i += 2) expect(withoutTime(lines[i + 1]!)).toBe(withoutTime(lines[i]!));
    expect(scalarLogger(logger.child({ component: 'x' }))).not.toBe(scalarLogger(logger));
  });
});
