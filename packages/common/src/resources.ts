import type { Express } from 'express';

/** One cleanup of a composition: what it closes, for the error that names it. */
interface Cleanup {
  name: string;
  close: () => unknown;
}

/**
 * What a service opened while starting, closed last-first: register each cleanup the moment its resource opens, so a
 * start that fails halfway closes exactly what it had opened, and a stop closes in the reverse order of opening.
 */
export class Resources {
  private readonly cleanups: Cleanup[] = [];
  private closing: Promise<void> | undefined;

  /** Registers the cleanup of a resource that has just opened; `close` may be sync or async. */
  add(name: string, close: () => unknown): void {
    if (this.closing) throw new Error(`cannot add ${name}: the resources are already closing`);
    this.cleanups.push({ name, close });
  }

  /** The names registered so far, in the order they opened. */
  get names(): string[] {
    return this.cleanups.map((c) => c.name);
  }

  /**
   * Closes everything, last opened first, each once. A cleanup that fails does not stop the others; the first failure
   * is thrown at the end, naming its resource. Calling it again waits for the same closing.
   */
  closeAll(): Promise<void> {
    this.closing ??= (async () => {
      let failure: Error | undefined;
      for (const { name, close } of [...this.cleanups].reverse()) {
        try {
          await close();
        } catch (err) {
          failure ??= new Error(`closing ${name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
      }
      if (failure) throw failure;
    })();
    return this.closing;
  }

  /**
   * Runs `open` (the steps of a start that register here); if it throws, closes what it had opened and throws its
   * error (a failing cleanup is handed to `onCloseError`, never hiding why the start failed).
   */
  async openAll<T>(open: () => Promise<T>, onCloseError: (err: unknown) => void = () => undefined): Promise<T> {
    try {
      return await open();
    } catch (err) {
      await this.closeAll().catch(onCloseError);
      throw err;
    }
  }
}

/**
 * What each service's composition root (its src/compose.ts) hands back, the same shape in both: the settled config,
 * the app built on the one domain, every cleanup, and the work beside HTTP. Each service adds its own parts.
 */
export interface Composed<C> {
  /** The config with HOST and API_KEY settled. */
  config: C & { HOST: string };
  app: Express;
  /** Every cleanup, in the order its resource opened. */
  resources: Resources;
  /** Starts the work beside HTTP, once the app listens. */
  start(): Promise<void>;
  /** Closes everything it opened, last opened first. */
  close(): Promise<void>;
}
