import { ApiProblem, type ErrorBody } from './api-client.js';

/** The error body as a user reads it: what went wrong and what to do. */
export function ErrorNote({ problem }: { problem: ErrorBody | null }) {
  if (!problem) return null;
  return (
    <div class="error-note" role="alert">
      <strong>{problem.error}</strong>
      {problem.solution ? <span> {problem.solution}</span> : null}
      {problem.details?.length ? (
        <ul>
          {problem.details.map((d) => (
            <li key={d.path}>
              {d.path}: {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Any thrown value as an error body (a network failure has none). */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof ApiProblem) return error.body;
  return { error: 'The service could not be reached', solution: 'Check that it is running and that this machine can reach it' };
}
