// What a template sees of a webhook body: a copy where no value can make rendering cost more than the body is long.
// Mustache prints a value with String() (an array of 16,000 items inside a section over itself printed 16,000 times,
// an object `{"toString":1}` threw), looks names up with `in` (so `constructor` or `toString` reached Object.prototype
// and were called), and iterates a whole array. Here a string is cut, an array keeps its first items and has no
// prototype, an object has no prototype, and an array or object prints as short JSON: data only, nothing callable.

/** Characters a string value keeps, and the most an array or object prints as (its JSON, cut): Pushover's message. */
export const VALUE_TEXT_MAX = 1024;
/** Items of an array a section iterates (an Alertmanager call holds at most 100 alerts). */
export const VIEW_ITEMS_MAX = 100;
/** Levels kept (the HTTP body is refused past 32); deeper containers print as an ellipsis. */
const VIEW_DEPTH_MAX = 32;

const shortened = new WeakMap<object, string>();

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The bounded copy of a parsed JSON body (or any value) that templates render. */
export function boundedView(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cut(value, VALUE_TEXT_MAX);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object') return undefined;
  if (depth >= VIEW_DEPTH_MAX) return '…';
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let i = 0; i < Math.min(value.length, VIEW_ITEMS_MAX); i++) items.push(boundedView(value[i], depth + 1));
    return Object.setPrototypeOf(items, null) as unknown[];
  }
  const copy = Object.create(null) as Record<string, unknown>;
  // Own enumerable keys only; with no prototype, `__proto__` is a plain key like any other.
  for (const key of Object.keys(value)) copy[key] = boundedView((value as Record<string, unknown>)[key], depth + 1);
  return copy;
}

/** How a view value prints: strings and numbers as themselves, arrays and objects as JSON cut to VALUE_TEXT_MAX. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || typeof value !== 'object') return '';
  let text = shortened.get(value);
  if (text === undefined) {
    const parts: string[] = [];
    writeJson(value, parts, { left: VALUE_TEXT_MAX + 1 });
    text = cut(parts.join(''), VALUE_TEXT_MAX);
    shortened.set(value, text);
  }
  return text;
}

/** Appends `value` as JSON until `budget.left` characters are written: the work is the output's, not the value's. */
function writeJson(value: unknown, parts: string[], budget: { left: number }): void {
  const write = (text: string) => {
    const part = text.length > budget.left ? text.slice(0, budget.left) : text;
    parts.push(part);
    budget.left -= part.length;
  };
  if (value === null || typeof value !== 'object') {
    write(typeof value === 'string' ? JSON.stringify(value) : String(value ?? null));
    return;
  }
  const isArray = Array.isArray(value);
  write(isArray ? '[' : '{');
  const keys = isArray ? null : Object.keys(value);
  const length = isArray ? (value as unknown[]).length : keys!.length;
  for (let i = 0; i < length && budget.left > 0; i++) {
    if (i > 0) write(',');
    // A key is cut before quoting: a 90 KB key costs what is printed of it.
    if (keys) write(`${JSON.stringify(keys[i]!.slice(0, budget.left))}:`);
    writeJson(keys ? (value as Record<string, unknown>)[keys[i]!] : (value as unknown[])[i], parts, budget);
  }
  write(isArray ? ']' : '}');
}
