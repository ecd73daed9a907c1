import type { EventStream } from '@homeops/common';
import type { Request, Response } from 'express';

/** The open live-event streams (GET /events) as the routes need them: open one, count them. */
export interface EventStreams {
  readonly size: number;
  open(req: Request, res: Response): EventStream;
}
