import Mustache from 'mustache';
import { textOf } from './bounded-view.js';

/** Template tokens one webhook call may visit (each section item counts): the built-in ones need about 300 per alert. */
export const RENDER_STEPS_MAX = 100_000;

/**
 * Mustache's own writer (its parsing, lookups and fallbacks kept), with a bounded amount of work: each field stops at
 * its character cap, and one call stops after RENDER_STEPS_MAX tokens (sections nested over one array otherwise
 * multiply: an item count to the power of the nesting). Values print through `textOf`, never String() of an object;
 * nothing is called (the view holds data only); partials are never given, so `{{> name}}` prints nothing.
 */
export class BoundedWriter extends Mustache.Writer {
  private steps = 0;
  private chars = 0;

  /** Starts one webhook call's step budget. */
  startCall(): void {
    this.steps = RENDER_STEPS_MAX;
  }

  /** Whether the call has used up its steps (its fields are then cut short). */
  overBudget(): boolean {
    return this.steps < 0;
  }

  /** Renders one field, at most `maxChars` characters of it. */
  renderField(template: string, view: object, maxChars: number): string {
    this.chars = maxChars;
    return this.render(template, view);
  }

  override renderTokens(tokens: string[][], context: Mustache.Context, partials?: Mustache.PartialsOrLookupFn, original?: string): string {
    let buffer = '';
    for (const token of tokens) {
      if (this.chars <= 0 || this.steps < 0) break;
      this.steps--;
      const symbol = token[0];
      if (symbol === '#') buffer += this.renderSection(token, context, partials, original);
      else if (symbol === '^') buffer += this.renderInverted(token, context, partials, original) ?? '';
      else if (symbol === 'text') buffer += this.take(token[1]!);
      else if (symbol === 'name' || symbol === '&') buffer += this.take(textOf(context.lookup(token[1]!)));
    }
    return buffer;
  }

  /**
   * Mustache's section, except that an item `null` is rendered as an empty string: Mustache pushes the item as the
   * context its lookups read a property of (`null.name`: a TypeError, a 500). Stops once the budget is spent.
   */
  override renderSection(token: string[], context: Mustache.Context, partials?: Mustache.PartialsOrLookupFn, original?: string): string {
    const value: unknown = context.lookup(token[1]!);
    if (!value) return '';
    const inner = token[4] as unknown as string[][];
    // Data only: true renders in the same context, any other value is pushed as the context (never called).
    if (!Array.isArray(value)) return this.renderTokens(inner, value === true ? context : context.push(value), partials, original);
    let buffer = '';
    // Each item is a step, even one rendering no token: empty sections nested over one array multiply too.
    for (let i = 0; i < value.length && this.chars > 0 && this.steps-- >= 0; i++) {
      buffer += this.renderTokens(inner, context.push((value[i] as unknown) ?? ''), partials, original);
    }
    return buffer;
  }

  private take(text: string): string {
    const part = text.length > this.chars ? text.slice(0, this.chars) : text;
    this.chars -= part.length;
    return part;
  }
}
