import { createLogger, ManualClock } from '@homeops/common';
import { drainEventLoop } from '@homeops/test-kit';
import { describe, expect, it } from 'vitest';
import { BudgetedReads, type ReadOperations } from '../../src/adapters/mqtt/budgeted-reads.js';
import { ADAPTER_FAMILIES } from '../../src/families/adapters.js';

/** The families' budgeted reads, as the adapter hands them over. */
const familyReads = ADAPTER_FAMILIES.flatMap(({ mqtt }) => (mqtt?.budgetedRead ? [mqtt.budgetedRead] : []));

const logger = createLogger({ service: 'test', level: 'silent' });

/** A domain with one energy plug and one hub through the cloud, and a budget with `room` messages in the background share. */
function fakeDomain(room: () => number) {
  const calls: string[] = [];
  const device = (uuid: string, capabilities: string[]) => ({ uuid, status: 'online', capabilities, link: { transport: 'cloud' } });
  const devices = {
    listDevices: () => [device('plug', ['switch', 'energy']), device('hub', ['hubSensors'])],
    health: () => ({ budget: { windows: [{ window: 'burst', remaining: 10 + room(), reservedForCallers: 10 }] } }),
    use: () => ({
      readPower: async (uuid: string) => void calls.push(`power ${uuid}`),
      readDaily: async (uuid: string) => void calls.push(`daily ${uuid}`),
      read: async (uuid: string) => void calls.push(`hub ${uuid}`),
    }),
  } as unknown as ReadOperations;
  return { devices, calls };
}

describe('BudgetedReads (energy and hubs for Home Assistant)', () => {
  it('reads every interval while the background share has room', async () => {
    const clock = new ManualClock();
    const { devices, calls } = fakeDomain(() => 100);
    const reads = new BudgetedReads({ devices, clock, logger, intervalMs: 300_000, reads: familyReads });

    reads.start();
    clock.advance(0);
    await drainEventLoop(10);
    expect(calls).toEqual(['power plug', 'daily plug', 'hub hub']);
    clock.advance(300_000);
    await drainEventLoop(10);
    reads.stop();

    expect(calls).toHaveLength(6);
    expect(clock.timers).toBe(0);
  });

  it('never reads from the share kept for callers', async () => {
    const clock = new ManualClock();
    const { devices, calls } = fakeDomain(() => 1);
    const reads = new BudgetedReads({ devices, clock, logger, intervalMs: 1_000, reads: familyReads });

    reads.start();
    for (let i = 0; i < 5; i++) {
      clock.advance(1_000);
      await drainEventLoop(10);
    }
    reads.stop();

    expect(calls).toEqual([]);
  });
});
