/** The `<option>`s of a select, one per `[value, text]`. */
export function ChoiceOptions({ choices }: { choices: readonly (readonly [string | number, string])[] }) {
  return (
    <>
      {choices.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </>
  );
}
