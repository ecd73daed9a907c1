import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, MerossEmulator, standardDevices, type EmulatedAccount } from '../emulator/meross-emulator.js';
import { createTestPki, type TestPki } from '../emulator/pki.js';
import { EmulatedService } from './service-process.js';

/** An emulated Meross cloud with the standard devices and src/main.ts running against it. */
export interface EmulatedSetup {
  pki: TestPki;
  account: EmulatedAccount;
  emulator: MerossEmulator;
  service: EmulatedService;
  workDir: string;
  /** Stops the service and the emulator and removes every temp file. */
  stop(): Promise<void>;
}

/**
 * Starts the emulator and the service in a fresh temp work dir named after `label`; `env` adds service variables
 * (the LAN is off unless `MEROSS_LAN: 'on'`, then on the emulator's port), `accountOverrides` changes the emulated
 * account (an MFA code) before the service first logs in.
 */
export async function startEmulatedSetup(
  label: string,
  env: Record<string, string> = {},
  accountOverrides: Partial<EmulatedAccount> = {},
): Promise<EmulatedSetup> {
  const pki = createTestPki();
  const account = createAccount(accountOverrides);
  const emulator = await MerossEmulator.start({ pki, account, devices: standardDevices() });
  const workDir = mkdtempSync(join(tmpdir(), `device-control-${label}-`));
  const service = await EmulatedService.start({ apiUrl: emulator.apiUrl, lanPort: emulator.lanPort, account, caFile: pki.caFile, workDir, env });
  const setup: EmulatedSetup = {
    pki,
    account,
    emulator,
    service,
    workDir,
    async stop() {
      // The service a test restarted, if it did.
      await setup.service.stop();
      await emulator.stop();
      pki.remove();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
  return setup;
}
