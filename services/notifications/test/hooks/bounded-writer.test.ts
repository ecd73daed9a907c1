import fc from 'fast-check';
import Mustache from 'mustache';
import { describe, expect, it } from 'vitest';
import { boundedView, textOf } from '../../src/adapters/hooks/bounded-view.js';
import { BoundedWriter } from '../../src/adapters/hooks/bounded-writer.js';

// The bounded writer replaces Mustache's token loop and sections (docs/decisions/bounded-hook-rendering.md): within
// its bounds it must render what Mustache renders. Bodies here stay within them (short strings, few items, no null
// item, no prototype name) and print arrays and objects the same way on both sides (textOf as the escape).

const NAMES = ['a', 'b', 'c', 'a.b', 'b.c', '.'];
const { template } = fc.letrec<{ template: string; piece: string }>((tie) => ({
  template: fc.array(tie('piece'), { maxLength: 5 }).map((pieces) => pieces.join('')),
  piece: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'template' },
    fc.constantFrom('x', ' ', '\n', '-'),
    fc.constantFrom(...NAMES).map((name) => `{{${name}}}`),
    fc
      .tuple(fc.constantFrom('#', '^'), fc.constantFrom(...NAMES.slice(0, 5)), tie('template'))
      .map(([kind, name, inner]) => `{{${kind}${name}}}${inner}{{/${name}}}`),
  ),
}));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'value' },
    fc.string({ maxLength: 8 }),
    fc.integer({ min: -5, max: 5 }),
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.record({ a: tie('value'), b: tie('value'), c: tie('value') }, { requiredKeys: [] }),
  ),
}));
const body = fc.record({ a: value, b: value, c: value }, { requiredKeys: [] });

describe('BoundedWriter', () => {
  it('renders what Mustache renders for bodies and templates within its bounds', () => {
    const writer = new BoundedWriter();
    fc.assert(
      fc.property(template, body, (text, data) => {
        writer.startCall();
        const bounded = writer.renderField(text, boundedView(data) as object, 100_000);
        expect(writer.overBudget()).toBe(false);
        expect(bounded).toBe(Mustache.render(text, data, {}, { escape: textOf }));
      }),
      { numRuns: 500 },
    );
  });

  it('stops a field at its character cap and a call at its step budget', () => {
    const writer = new BoundedWriter();
    const view = boundedView({ items: Array.from({ length: 500 }, (_, i) => i), word: 'abc' }) as object;

    writer.startCall();
    expect(writer.renderField('{{#items}}{{word}}{{/items}}', view, 10)).toBe('abcabcabca');
    expect(writer.overBudget()).toBe(false);
    expect(writer.renderField('{{#items}}{{#items}}{{#items}}{{/items}}{{/items}}{{/items}}', view, 10)).toBe('');
    expect(writer.overBudget()).toBe(true);
  });
});
