import { RecipientField } from './recipient-field.js';

interface Props {
  /** The recipient datalist's id, unique on the page. */
  id: string;
  recipient: string;
  /** The recipients known to the page, offered while typing. */
  recipients: readonly string[];
  /** The recipients this caller's notifications:send is limited to; undefined: anyone. */
  allowed: readonly string[] | undefined;
  /** The message box's height in lines. */
  rows: number;
}

/** What every notification a form makes starts with: its recipient, title and message, within the API's limits. */
export function MessageFields({ id, recipient, recipients, allowed, rows }: Props) {
  return (
    <>
      <RecipientField id={id} recipient={recipient} recipients={recipients} allowed={allowed} />
      <label>
        Title
        <input name="title" maxLength={250} />
      </label>
      <label>
        Message
        <textarea name="message" required maxLength={1024} rows={rows} />
      </label>
    </>
  );
}
