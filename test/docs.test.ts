import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceAliases, serviceVariables } from './support/config-variables.js';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Markdown files under `dir` (repository-relative), recursively. */
function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const serviceReadmes = readdirSync(join(root, 'services'))
  .map((name) => `services/${name}/README.md`)
  .filter((path) => existsSync(join(root, path)));
const documents = ['README.md', ...serviceReadmes, ...markdownUnder('docs')];

/** The lines of a markdown text outside fenced code blocks, with inline code spans blanked. */
function proseLines(text: string): string[] {
  let fenced = false;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) lines.push(line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length)));
  }
  return lines;
}

/** GitHub's anchor for a heading: lower-case, punctuation other than '-' and '_' dropped, spaces to '-'. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a markdown file's headings get (a repeated heading gets -1, -2…, as on GitHub). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(heading[1]!);
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
  }
  return anchors;
}

/** Every link and image target of a markdown text: `[text](target)`, outside code. */
function linkTargets(text: string): string[] {
  return proseLines(text).flatMap((line) => [...line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!));
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with a relative link of `document`, or undefined when it resolves to a file and heading. */
function brokenLink(document: string, target: string): string | undefined {
  const hash = target.indexOf('#');
  const pathPart = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === '' ? document : relative(root, join(root, dirname(document), decodeURIComponent(pathPart)));
  if (file.startsWith('..') || !existsSync(join(root, file))) return `${target}: no file ${file}`;
  if (anchor === undefined || !file.endsWith('.md')) return undefined;
  return anchorsOf(read(file)).has(anchor) ? undefined : `${target}: no heading of ${file} has the anchor #${anchor}`;
}

describe('documentation links', () => {
  it('covers the README, each service README and every page under docs/', () => {
    expect(documents).toContain('docs/architecture.md');
    expect(documents.some((path) => path.startsWith('docs/decisions/'))).toBe(true);
    expect(serviceReadmes.length).toBe(2);
  });

  it('slugs headings as GitHub does', () => {
    expect(slugOf('More than one machine (PostgreSQL)')).toBe('more-than-one-machine-postgresql');
    expect(slugOf('notifications: `POST /notifications` (provider off)')).toBe('notifications-post-notifications-provider-off');
    expect(slugOf('The Meross account: budget and lock-outs')).toBe('the-meross-account-budget-and-lock-outs');
    expect(slugOf('snake_case and kebab-case')).toBe('snake_case-and-kebab-case');
  });

  for (const document of documents) {
    it(`${document}: every relative link points to an existing file and heading`, () => {
      const broken = linkTargets(read(document))
        .filter((target) => !isExternal(target))
        .map((target) => brokenLink(document, target))
        .filter((problem) => problem !== undefined);
      expect(broken).toEqual([]);
    });
  }
});

describe('docs/configuration.md', () => {
  const documented = new Set([...read('docs/configuration.md').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));

  it('documents every variable that a service config schema reads', () => {
    for (const [service, variables] of Object.entries(serviceVariables)) {
      expect(variables.length, service).toBeGreaterThan(5);
      expect(
        variables.filter((name) => !documented.has(name)),
        service,
      ).toEqual([]);
    }
  });

  it('documents every other name the alias tables read', () => {
    expect(
      Object.values(serviceAliases)
        .flat()
        .filter((name) => !documented.has(name)),
    ).toEqual([]);
  });

  it('documents every variable that .env.example lists', () => {
    const listed = [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
    expect(listed.filter((name) => !documented.has(name))).toEqual([]);
  });
});

describe('README.md', () => {
  it('has at most 150 lines', () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(150);
  });

  it('keeps the two quick-start commands', () => {
    const readme = read('README.md');
    expect(readme).toContain('npx -y pnpm@10 install && npx -y pnpm@10 start');
    expect(readme).toContain('npx -y pnpm@10 install && npx -y pnpm@10 test');
  });
});
