// The parts of pushover-notifications 1.2.x (CommonJS, untyped) that pushover-request.ts uses.
declare module 'pushover-notifications' {
  import type { IncomingMessage } from 'node:http';

  namespace Pushover {
    interface Options {
      user: string;
      token: string;
      httpOptions?: Record<string, unknown>;
      onerror?: (error: unknown, res?: IncomingMessage) => void;
      debug?: boolean;
    }
    type Callback = (error: Error | undefined | null, data?: string, res?: IncomingMessage) => void;
  }

  class Pushover {
    constructor(options: Pushover.Options);
    /** The multipart delimiter line: "--" and the boundary (drawn with Math.random unless replaced). */
    boundary: string;
    send(fields: Record<string, unknown>, callback: Pushover.Callback): void;
    errors(data: unknown, res?: IncomingMessage): void;
  }

  export = Pushover;
}
