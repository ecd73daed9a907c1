import { type ApiClient, type ErrorBody, ErrorNote, lacking, type StreamState, timeFromNow, toErrorBody } from '@homeops/web-kit';
import { useState } from 'preact/hooks';
import type { Health, HealthSummary } from './types.js';

const STATE_CLASS: Record<string, string> = { connected: 'ok', connecting: 'warn', 'backing-off': 'warn' };
const WINDOW_NAME = { hour: 'hour', burst: 'minute' } as const;

/** The cloud session and the message budget per window, from /health, and the live stream. */
export function StatusBar({
  client,
  health,
  stream,
  mayLogIn,
  onChange,
}: {
  client: ApiClient;
  health: Health | HealthSummary | null;
  /** The stream of GET /events; null when this caller reads no devices, so none is open. */
  stream: StreamState | null;
  /** Whether this caller may answer the MFA prompt (POST /cloud/login needs admin). */
  mayLogIn: boolean;
  onChange(): Promise<void>;
}) {
  if (!health)
    return (
      <div class="statusbar" role="status">
        Checking the service…
      </div>
    );
  const live = stream ? <span>Live: {stream === 'open' ? 'on' : stream}</span> : null;
  // Asked without the key, or with a token that is not admin, /health tells only the service's status: the session
  // and budget stay with the key and admin tokens, and the page shows what it has instead of an error.
  if (!('cloud' in health)) {
    return (
      <div class="statusbar" role="status" aria-label="Service status">
        <span>Service {health.status}</span>
        {live}
      </div>
    );
  }
  const { cloud } = health;
  return (
    <div class="statusbar" role="status" aria-label="Service status">
      <span>
        Cloud <span class={`badge ${STATE_CLASS[cloud.state] ?? 'bad'}`}>{cloud.state}</span>
        {health.backend === 'simulator' ? ' (simulator)' : ''}
      </span>
      {health.lan ? (
        <span>
          LAN <strong>{health.lan.summary}</strong>
        </span>
      ) : null}
      {health.budget.windows.map((w) => (
        <span key={w.window}>
          Budget per {WINDOW_NAME[w.window]}: <strong>{w.remaining}</strong> of {w.limit} left
        </span>
      ))}
      {live}
      {cloud.retryAt ? <span>Next try {timeFromNow(cloud.retryAt)}</span> : null}
      {cloud.action ? <span class="action">{cloud.action}</span> : null}
      {cloud.state === 'needs-mfa' ? (
        mayLogIn ? (
          <MfaForm client={client} onDone={onChange} />
        ) : (
          <span class="lock-note">{lacking('admin', 'to enter the MFA code')}</span>
        )
      ) : null}
    </div>
  );
}

/** The session waits for a code from the authenticator app: POST /cloud/login. */
function MfaForm({ client, onDone }: { client: ApiClient; onDone(): Promise<void> }) {
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  return (
    <form
      class="row"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          await client.json('POST', '/cloud/login', { mfaCode: code });
          setProblem(null);
        } catch (error) {
          setProblem(toErrorBody(error));
        }
        await onDone();
      }}
    >
      <label>
        MFA code
        <input inputMode="numeric" pattern="[0-9]{6}" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
      </label>
      <button type="submit">Log in</button>
      <ErrorNote problem={problem} />
    </form>
  );
}
