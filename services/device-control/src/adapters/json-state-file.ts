import { readFile } from 'node:fs/promises';
import { writeFileAtomically } from '@homeops/common';
import type { FamilyStateFile } from '../domain/device-family.js';

/** A family's state as JSON in the data folder, replaced atomically (0600) as the watches file is. */
export class JsonStateFile implements FamilyStateFile {
  constructor(private readonly file: string) {}

  async read(): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.file, 'utf8')) as unknown;
    } catch {
      // Missing, unreadable or cut short: the family starts from what the devices tell.
      return undefined;
    }
  }

  async write(value: unknown): Promise<void> {
    await writeFileAtomically(this.file, `${JSON.stringify(value)}\n`);
  }
}
