import type { TokenView } from '@homeops/common';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiClient, ErrorBody } from '../api-client.js';
import { ErrorNote, toErrorBody } from '../error-note.js';
import { localTime, timeFromNow } from '../time.js';
import { describeGrant, type ScopeChoice } from './scope-choices.js';
import { type Secret, SecretNote } from './secret-note.js';
import { TokenForm } from './token-form.js';

interface Props {
  client: ApiClient;
  choices: readonly ScopeChoice[];
  /** The service has no API_KEY: tokens are made but not checked. */
  open: boolean;
}

/** The admin's tokens: GET /tokens listed, created, rotated and revoked; a new secret is shown once. */
export function TokensPanel({ client, choices, open }: Props) {
  const [tokens, setTokens] = useState<TokenView[] | null>(null);
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [secret, setSecret] = useState<Secret | null>(null);

  const load = useCallback(async () => {
    try {
      setTokens((await client.json<{ tokens: TokenView[] }>('GET', '/tokens')).body.tokens);
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
  }, [client]);
  useEffect(() => void load(), [load]);

  const act = async (work: () => Promise<void>) => {
    try {
      await work();
      setProblem(null);
    } catch (error) {
      setProblem(toErrorBody(error));
    }
    await load();
  };

  return (
    <section id="tokens" class="card tokens" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Tokens</h2>
      <p class="muted">
        A token for each person and script, limited to what it needs. The service keeps only a hash: a secret is shown once, when the token is made or rotated.
      </p>
      {open ? <p class="muted">This service has no API_KEY: every caller is an admin, and tokens are not checked until one is set.</p> : null}
      {secret ? <SecretNote secret={secret} onDone={() => setSecret(null)} /> : null}
      <ErrorNote problem={problem} />
      {tokens?.length === 0 ? <p class="muted">No tokens yet.</p> : null}
      <ul class="token-list">
        {(tokens ?? []).map((token) => (
          <TokenItem
            key={token.id}
            token={token}
            choices={choices}
            onRotate={() => act(async () => setSecret((await client.json<Secret>('POST', `/tokens/${token.id}/rotate`)).body))}
            onRevoke={() => act(async () => void (await client.json('DELETE', `/tokens/${token.id}`)))}
          />
        ))}
      </ul>
      <TokenForm
        client={client}
        choices={choices}
        onCreated={(created) => {
          setSecret(created);
          void load();
        }}
      />
    </section>
  );
}

interface ItemProps {
  token: TokenView;
  choices: readonly ScopeChoice[];
  onRotate(): Promise<void>;
  onRevoke(): Promise<void>;
}

/** One token: what it may do and when it was made, expires and was last used; rotate and revoke after a confirmation. */
function TokenItem({ token, choices, onRotate, onRevoke }: ItemProps) {
  const [asking, setAsking] = useState<'rotate' | 'revoke' | null>(null);
  const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= Date.now();
  const headingId = `token-${token.id}`;
  const confirm = async () => {
    const action = asking === 'rotate' ? onRotate : onRevoke;
    setAsking(null);
    await action();
  };
  return (
    <li class="token" aria-labelledby={headingId}>
      <div class="row">
        <h3 id={headingId}>{token.label}</h3>
        {expired ? <span class="badge bad">expired</span> : null}
      </div>
      <ul class="grants">
        {token.scopes.map((grant) => (
          <li key={grant.scope}>{describeGrant(grant, choices)}</li>
        ))}
      </ul>
      <p class="muted">
        <span title={localTime(token.createdAt)}>created {timeFromNow(token.createdAt)}</span> ·{' '}
        <span title={localTime(token.expiresAt)}>
          {token.expiresAt ? `${expired ? 'expired' : 'expires'} ${timeFromNow(token.expiresAt)}` : 'never expires'}
        </span>{' '}
        · <span title={localTime(token.lastUsedAt)}>last used {timeFromNow(token.lastUsedAt)}</span>
      </p>
      {asking ? (
        <div class="row confirm" role="group" aria-label={`Confirm ${asking}`}>
          <span>{asking === 'rotate' ? 'A new secret replaces the old one, which stops working at once.' : 'The token stops working at once.'}</span>
          <span class="actions">
            <button type="button" class="danger" onClick={() => void confirm()}>
              {asking === 'rotate' ? `Rotate ${token.label} now` : `Revoke ${token.label} now`}
            </button>
            <button type="button" onClick={() => setAsking(null)}>
              Cancel
            </button>
          </span>
        </div>
      ) : (
        <span class="actions">
          <button type="button" aria-label={`Rotate ${token.label}`} onClick={() => setAsking('rotate')}>
            Rotate
          </button>
          <button type="button" aria-label={`Revoke ${token.label}`} onClick={() => setAsking('revoke')}>
            Revoke
          </button>
        </span>
      )}
    </li>
  );
}
