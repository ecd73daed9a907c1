import { readFile } from 'node:fs/promises';
import { writeFileAtomically } from '@homeops/common';
import { parse as parseYaml } from 'yaml';
import type { WatchSpec } from '../../domain/watches/watch-spec.js';
import type { WatchStore } from '../../domain/watches/device-watches.js';

/** Checks one watch of the file as the API checks it (the http schema, passed in by main); throws naming it. */
export type ParseWatch = (name: string, body: unknown) => WatchSpec;

/**
 * The watches in WATCHES_FILE: YAML or JSON (`watches: { <name>: { condition, notify, clearSeconds } }`), written by
 * hand or by PUT /watches (then as JSON, replaced atomically). A file that does not parse stops the start, naming why.
 */
export class FileWatchStore implements WatchStore {
  constructor(
    private readonly file: string,
    private readonly parse: ParseWatch,
  ) {}

  async load(): Promise<WatchSpec[]> {
    const text = await readFile(this.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw new Error(`cannot read WATCHES_FILE ${this.file}: ${err.code ?? err.message}`);
    });
    if (text === undefined) return [];
    let parsed: unknown;
    try {
      parsed = parseYaml(text);
    } catch (err) {
      throw new Error(`WATCHES_FILE ${this.file} is not YAML or JSON: ${(err as Error).message}`);
    }
    const watches = (parsed as { watches?: unknown } | null)?.watches ?? {};
    if (watches === null || typeof watches !== 'object' || Array.isArray(watches))
      throw new Error(`WATCHES_FILE ${this.file}: watches must be a map of name to watch`);
    return Object.entries(watches).map(([name, body]) => {
      try {
        return this.parse(name, body);
      } catch (err) {
        throw new Error(`WATCHES_FILE ${this.file}: ${(err as Error).message}`);
      }
    });
  }

  async save(watches: readonly WatchSpec[]): Promise<void> {
    const content = { watches: Object.fromEntries(watches.map(({ name, ...body }) => [name, body])) };
    await writeFileAtomically(this.file, `${JSON.stringify(content, null, 2)}\n`);
  }
}

/** Watches kept in memory (tests, and a service without a data folder). */
export class InMemoryWatchStore implements WatchStore {
  private watches: WatchSpec[] = [];

  load(): Promise<WatchSpec[]> {
    return Promise.resolve(structuredClone(this.watches));
  }

  save(watches: readonly WatchSpec[]): Promise<void> {
    this.watches = structuredClone([...watches]);
    return Promise.resolve();
  }
}
