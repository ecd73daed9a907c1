interface Props {
  /** The datalist's id, unique on the page. */
  id: string;
  recipient: string;
  /** The recipients known to the page, offered while typing. */
  recipients: readonly string[];
  /** The recipients this caller's notifications:send is limited to; undefined: anyone. */
  allowed: readonly string[] | undefined;
}

/** A form's recipient: typed (the known ones offered), or picked from the few a limited token may send to. */
export function RecipientField({ id, recipient, recipients, allowed }: Props) {
  if (allowed !== undefined) {
    return (
      <label>
        Recipient (this token sends to these only)
        <select name="recipient">
          {allowed.map((r) => (
            <option key={r} value={r} selected={r === recipient}>
              {r}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <label>
      Recipient
      <input name="recipient" required maxLength={256} list={id} defaultValue={recipient} />
      <datalist id={id}>
        {recipients.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
    </label>
  );
}
