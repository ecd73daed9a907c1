import type { Scope } from '@homeops/common';
import { useState } from 'preact/hooks';
import type { ApiClient, ErrorBody } from '../api-client.js';
import { ErrorNote, toErrorBody } from '../error-note.js';
import { grantsOf, type ScopeChoice } from './scope-choices.js';
import type { Secret } from './secret-note.js';

const MAX_DAYS = 3650;

interface Props {
  client: ApiClient;
  choices: readonly ScopeChoice[];
  onCreated(created: Secret): void;
}

/** POST /tokens: a label, the scopes with their limits, an optional expiry in days. */
export function TokenForm({ client, choices, onCreated }: Props) {
  const [ticked, setTicked] = useState<ReadonlySet<Scope>>(new Set());
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [busy, setBusy] = useState(false);
  const tick = (scope: Scope, on: boolean) => setTicked((all) => new Set([...all].filter((s) => s !== scope).concat(on ? [scope] : [])));

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const scopes = grantsOf(data, choices);
    if (scopes.length === 0) return setProblem({ error: 'No scope chosen', solution: 'Tick at least one scope' });
    const days = String(data.get('days') ?? '').trim();
    setBusy(true);
    try {
      const body = { label: String(data.get('label')).trim(), scopes, ...(days !== '' ? { expiresInDays: Number(days) } : {}) };
      const { body: created } = await client.json<Secret>('POST', '/tokens', body);
      form.reset();
      setTicked(new Set());
      setProblem(null);
      onCreated(created);
    } catch (error) {
      setProblem(toErrorBody(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="token-form" aria-label="New token" onSubmit={(event) => void submit(event)}>
      <h3>New token</h3>
      <label>
        Label
        <input name="label" required maxLength={100} placeholder="Kitchen shortcut" />
      </label>
      <fieldset>
        <legend>Scopes</legend>
        {choices.map((choice) => (
          <div key={choice.scope} class="scope-choice">
            <label class="check">
              <input
                type="checkbox"
                name="scope"
                value={choice.scope}
                checked={ticked.has(choice.scope)}
                onChange={(e) => tick(choice.scope, e.currentTarget.checked)}
              />
              <span>
                <code>{choice.scope}</code> <span class="muted">{choice.text}</span>
              </span>
            </label>
            {ticked.has(choice.scope) && (choice.limits?.length || choice.numbers?.length) ? <Limits choice={choice} /> : null}
          </div>
        ))}
      </fieldset>
      <label>
        Expires after (days, empty: never)
        <input name="days" type="number" min={1} max={MAX_DAYS} step={1} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create token'}
      </button>
      <ErrorNote problem={problem} />
    </form>
  );
}

/** The limits of one ticked scope; nothing ticked in a limit leaves the scope unlimited there. */
function Limits({ choice }: { choice: ScopeChoice }) {
  return (
    <div class="limits">
      {(choice.limits ?? []).map((limit) => {
        const name = `${choice.scope} ${limit.field}`;
        return (
          <fieldset key={limit.field}>
            <legend>{limit.text}</legend>
            {limit.options.map((option) => (
              <label key={option.value} class="check">
                <input type="checkbox" name={name} value={option.value} />
                <span>
                  {option.text}
                  {option.hint ? <span class="muted"> {option.hint}</span> : null}
                </span>
              </label>
            ))}
            {limit.other ? (
              <label>
                {limit.options.length > 0 ? 'Others' : 'Names'} (comma-separated)
                <input name={`${name} other`} />
              </label>
            ) : null}
          </fieldset>
        );
      })}
      {(choice.numbers ?? []).map((limit) => (
        <label key={limit.field}>
          {limit.text}
          <input name={`${choice.scope} ${limit.field}`} type="number" min={limit.min} max={limit.max} step={1} />
        </label>
      ))}
    </div>
  );
}
