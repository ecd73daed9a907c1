import { useCallback, useState } from 'preact/hooks';
import type { ErrorBody } from './api-client.js';
import { toErrorBody } from './error-note.js';

/** What a control that calls the service needs: busy while its call runs, and the error body when it failed. */
export interface Action {
  busy: boolean;
  problem: ErrorBody | null;
  /** Runs `work`; its failure becomes `problem`, its success clears it. */
  act(work: () => Promise<void>): Promise<void>;
}

/** One call at a time for a control (a list item's buttons, a form), with the error shown beside it. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const act = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, problem, act };
}
