import { parseDocument } from 'yaml';

// YAML 1.2's c-printable set: a file with any other character raw is one strict parsers (js-yaml) refuse.
const NON_PRINTABLE = /[^\t\n\r\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Loads YAML as a general-purpose reader would, refusing what the strictest would: errors, warnings, raw non-printables. */
export function loadReferenceYaml(text: string): unknown {
  const bad = NON_PRINTABLE.exec(text);
  if (bad) throw new Error(`non-printable character U+${bad[0].codePointAt(0)!.toString(16).padStart(4, '0')} at offset ${bad.index}`);
  const document = parseDocument(text);
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) throw problem;
  return document.toJS();
}
