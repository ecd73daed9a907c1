import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.js';

/** Asks once for the API key the service requires; it is kept for this tab only (sessionStorage). */
export function KeyPrompt({ client }: { client: ApiClient }) {
  const [key, setKey] = useState('');
  const rejected = client.hasKey;
  return (
    <form
      class="card key-prompt"
      onSubmit={(event) => {
        event.preventDefault();
        if (key.trim() !== '') client.setKey(key.trim());
      }}
    >
      <h2>API key needed</h2>
      <p>
        {rejected
          ? 'The key was not accepted. Enter the API_KEY the service was started with.'
          : 'This service is protected with an API key (API_KEY). It is kept for this tab only.'}
      </p>
      <label>
        API key
        <input type="password" name="apiKey" autocomplete="current-password" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      </label>
      <button type="submit">Unlock</button>
    </form>
  );
}
