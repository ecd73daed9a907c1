import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from './api-client.js';

/** Re-renders on key changes; answers whether the key is needed and the key version (a dependency for loads). */
export function useClientState(client: ApiClient): { keyNeeded: boolean; version: number } {
  const [state, setState] = useState({ keyNeeded: client.keyNeeded, version: client.version });
  useEffect(() => client.subscribe(() => setState({ keyNeeded: client.keyNeeded, version: client.version })), [client]);
  return state;
}
