import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.js';

/** Asks once for the API key the service requires, or a token made for the user; it is kept for this tab only (sessionStorage). */
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
      <h2>API key or token needed</h2>
      <p>
        {rejected
          ? 'The key or token was not accepted. Enter the API_KEY the service was started with, or a token made for you (hop_…).'
          : 'This service is protected with an API key (API_KEY); a token made for you (hop_…) works too. It is kept for this tab only.'}
      </p>
      <label>
        API key or token
        <input type="password" name="apiKey" autocomplete="current-password" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      </label>
      <button type="submit">Unlock</button>
    </form>
  );
}
