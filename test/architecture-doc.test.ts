import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// docs/architecture.md is the map a newcomer reads first; this keeps it from drifting. It must name every file at the
// root of a service's src/ (where a service is put together), every function a composition root exports, and every
// class with a life cycle (a start and a stop method) anywhere in the packages and services.
const root = join(import.meta.dirname, '..');
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const SERVICES = ['device-control', 'notifications'] as const;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** The functions a file exports by declaration (`export function x` / `export const x = (…) =>`). */
function exportedFunctions(file: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of file.statements) {
    if (!isExported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name) names.push(statement.name.text);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (ts.isIdentifier(declaration.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
          names.push(declaration.name.text);
        }
      }
    }
  }
  return names;
}

/** Classes declaring both a `start` and a `stop` method. */
function lifeCycleClasses(file: ts.SourceFile): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name) {
      const methods = new Set(node.members.filter(ts.isMethodDeclaration).map((m) => m.name.getText(file)));
      if (methods.has('start') && methods.has('stop')) names.push(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** A name counts as named when the doc has it as a whole word (`compose.ts`, `composeService`). */
function named(name: string): boolean {
  return new RegExp(`(^|[^\\w.-])${name.replace(/[.$]/g, '\\$&')}(?![\\w-])`, 'm').test(doc);
}

describe('docs/architecture.md names what a newcomer looks for', () => {
  for (const service of SERVICES) {
    const src = join(root, 'services', service, 'src');
    const rootFiles = readdirSync(src).filter((entry) => /\.tsx?$/.test(entry) && statSync(join(src, entry)).isFile());

    it(`every root file of ${service}/src`, () => {
      expect(rootFiles.length).toBeGreaterThan(0);
      expect(rootFiles.filter((file) => !named(file))).toEqual([]);
    });

    it(`every function ${service}'s root files export`, () => {
      const functions = rootFiles.flatMap((file) => exportedFunctions(parse(join(src, file))));
      expect(functions.length).toBeGreaterThan(0);
      expect(functions.filter((name) => !named(name))).toEqual([]);
    });
  }

  it('every class with a start and a stop', () => {
    const dirs = [...SERVICES.map((s) => join(root, 'services', s, 'src')), join(root, 'packages/common/src')];
    const classes = dirs.flatMap((dir) =>
      sourceFiles(dir)
        // Only a file with a class and both words can hold one: parsing the rest would only cost time.
        .filter((path) => {
          const text = readFileSync(path, 'utf8');
          return /\bclass\b/.test(text) && /\bstart\s*\(/.test(text) && /\bstop\s*\(/.test(text);
        })
        .flatMap((path) => lifeCycleClasses(parse(path)).map((name) => ({ name, file: relative(root, path) }))),
    );
    expect(classes.length).toBeGreaterThan(3);
    expect(classes.filter(({ name }) => !named(name))).toEqual([]);
  });
});
