import type { Grant, Scope } from '@homeops/common';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiClient, ErrorBody } from '../api-client.js';
import { toErrorBody } from '../error-note.js';

/** GET /auth/me: who the key or token of this tab is, and its scopes with their limits. */
export interface Me {
  kind: 'open' | 'key' | 'token';
  label: string | null;
  scopes: Grant[];
}

/** What the caller of this tab may do, read again whenever the key changes, and why /auth/me did not answer. */
export function useAccess(client: ApiClient, version: number): { access: Access; problem: ErrorBody | null } {
  const [state, setState] = useState<{ me: Me | null; problem: ErrorBody | null }>({ me: null, problem: null });
  useEffect(() => {
    let live = true;
    setState({ me: null, problem: null });
    client.json<Me>('GET', '/auth/me').then(
      ({ body }) => live && setState({ me: body, problem: null }),
      // A 401 is the key prompt's to tell.
      (error: unknown) => live && setState({ me: null, problem: client.keyNeeded ? null : toErrorBody(error) }),
    );
    return () => {
      live = false;
    };
  }, [client, version]);
  const access = useMemo(() => new Access(state.me), [state.me]);
  return { access, problem: state.problem };
}

const CHECKING = 'Checking what this key may do…';

/**
 * What the caller may do, read as the service decides it (`Principal` in @homeops/common), so the page shows and
 * disables accordingly; the service still checks every call. Until /auth/me answers, nothing is allowed. A grant's
 * limits (devices, families, recipients) are each service's to read, from `grant`.
 */
export class Access {
  constructor(readonly me: Me | null) {}

  get known(): boolean {
    return this.me !== null;
  }

  get isAdmin(): boolean {
    return this.me?.scopes.some((g) => g.scope === 'admin') ?? false;
  }

  /** Who is signed in, as the page says it. */
  get who(): string {
    if (!this.me) return '…';
    if (this.me.kind === 'open') return 'open (no API key set)';
    return this.me.kind === 'key' ? 'API key' : (this.me.label ?? 'token');
  }

  /** The grant that allows `scope` (unlimited for admin); undefined when the caller lacks it. */
  grant(scope: Scope): Grant | undefined {
    if (this.isAdmin) return { scope };
    return this.me?.scopes.find((g) => g.scope === scope);
  }

  /** Why the caller may not use `scope` (`what`: for which target), or null when it may. */
  lacks(scope: Scope, what?: string): string | null {
    if (!this.me) return CHECKING;
    return this.grant(scope) ? null : lacking(scope, what);
  }
}

/** The reason shown beside what the caller may not do. */
export function lacking(scope: Scope, what?: string): string {
  return `This token lacks ${scope}${what ? ` ${what}` : ''}`;
}

/** The attributes of a control the caller may not use: disabled, with the reason as its tooltip. */
export function lockProps(reason: string | null): { disabled: boolean; title?: string; 'data-locked'?: true } {
  return reason === null ? { disabled: false } : { disabled: true, title: reason, 'data-locked': true };
}
