import { useState } from 'preact/hooks';
import type { ApiClient } from '../api-client.js';
import type { Access } from './access.js';

interface Props {
  client: ApiClient;
  access: Access;
  /** Whether the tokens panel is open; the Tokens button shows for admins only. */
  tokensOpen: boolean;
  onTokens(open: boolean): void;
}

/** Who is signed in, a way to use another key or token in this tab (a service without a key checks none), and for an admin the Tokens button. */
export function AccessBar({ client, access, tokensOpen, onTokens }: Props) {
  const [switching, setSwitching] = useState(false);
  const [key, setKey] = useState('');
  if (!access.known) return null;
  return (
    <div class="access-bar">
      <span class="signed-in">
        Signed in: <strong>{access.who}</strong>
      </span>
      {access.me?.kind !== 'open' ? (
        <button type="button" aria-expanded={switching} onClick={() => setSwitching(!switching)}>
          Use another key
        </button>
      ) : null}
      {access.isAdmin ? (
        <button type="button" aria-expanded={tokensOpen} aria-controls="tokens" onClick={() => onTokens(!tokensOpen)}>
          Tokens
        </button>
      ) : null}
      {switching ? (
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            if (key.trim() === '') return;
            client.setKey(key.trim());
            setKey('');
            setSwitching(false);
          }}
        >
          <label>
            Key or token for this tab
            <input type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          </label>
          <button type="submit">Use</button>
        </form>
      ) : null}
    </div>
  );
}
