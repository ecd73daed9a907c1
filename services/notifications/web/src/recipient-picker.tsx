import type { RecipientSummary } from './types.js';

/** The recipients as buttons with their unread count. */
export function RecipientPicker({ recipients, selected, onSelect }: { recipients: RecipientSummary[]; selected: string | null; onSelect(r: string): void }) {
  if (recipients.length === 0) return null;
  return (
    <nav aria-label="Recipients" class="recipients">
      {recipients.map((r) => (
        <button key={r.recipient} type="button" aria-pressed={r.recipient === selected} onClick={() => onSelect(r.recipient)}>
          {r.recipient}
          {r.unread > 0 ? (
            <span class="count" aria-label={`${r.unread} unread`}>
              {r.unread}
            </span>
          ) : null}
        </button>
      ))}
    </nav>
  );
}
