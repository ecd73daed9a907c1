import type { TokenView } from '@homeops/common';
import { useEffect, useRef, useState } from 'preact/hooks';

/** What POST /tokens and POST /tokens/{id}/rotate answer: the token and its secret, shown this once. */
export interface Secret {
  token: TokenView;
  secret: string;
}

// The clipboard API exists in secure contexts only; a dashboard opened over plain HTTP on the LAN copies the old way.
async function copy(input: HTMLInputElement): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard) {
    const written = await navigator.clipboard.writeText(input.value).then(
      () => true,
      () => false,
    );
    if (written) return true;
  }
  input.select();
  return document.execCommand('copy');
}

/** A new secret, shown once: copy it, then Done forgets it (it is kept nowhere, not even in this tab's storage). */
export function SecretNote({ secret, onDone }: { secret: Secret; onDone(): void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  useEffect(() => input.current?.select(), []);
  const copyNow = async () => setCopied(input.current ? await copy(input.current) : false);
  return (
    <section class="secret-note" aria-label="New secret">
      <p>
        <strong>The secret of “{secret.token.label}”.</strong> Copy it now: you will not see it again.
      </p>
      <div class="row">
        <label class="secret">
          <span class="visually-hidden">Secret</span>
          <input ref={input} readOnly value={secret.secret} spellcheck={false} autocomplete="off" />
        </label>
        <button type="button" onClick={() => void copyNow()}>
          Copy
        </button>
        <button type="button" class="primary" onClick={onDone}>
          Done
        </button>
      </div>
      {copied !== null ? (
        <p class="muted" role="status">
          {copied ? 'Copied.' : 'Could not copy: select it and copy by hand.'}
        </p>
      ) : null}
    </section>
  );
}
