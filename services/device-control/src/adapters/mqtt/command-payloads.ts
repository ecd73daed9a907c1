import { AppError } from '@homeops/common/core';

/** The channel a command topic names. */
export function channelOf(key: string): number {
  const channel = Number(key);
  if (!Number.isInteger(channel) || channel < 0)
    throw new AppError('VALIDATION_FAILED', 'No such channel', { details: [{ path: 'topic', message: 'must name a channel' }] });
  return channel;
}

/** One of the words a command takes, in any case. */
export function oneOf<T extends string>(text: string, allowed: readonly T[]): T {
  const word = text.trim().toUpperCase();
  if ((allowed as readonly string[]).includes(word)) return word as T;
  throw new AppError('VALIDATION_FAILED', `The command must be ${allowed.join(', ')}`, {
    details: [{ path: 'payload', message: `must be ${allowed.join(', ')}` }],
  });
}
