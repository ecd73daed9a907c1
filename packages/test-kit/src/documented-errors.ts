import { ERROR_TABLE, type ErrorCode } from '@homeops/common/core';

interface DocumentedResponse {
  description: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
}

/** The part of an OpenAPI document this reads: each operation's responses. */
export interface OpenApiResponses {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> }; responses?: Record<string, DocumentedResponse> }>>;
}

/** What reading any JSON body can raise (common's parser or a service's own reader): every JSON-body route documents them. */
export const JSON_BODY_ERRORS: readonly ErrorCode[] = ['MALFORMED_JSON', 'JSON_TOO_DEEP', 'PAYLOAD_TOO_LARGE'];

const ERROR_BODY_REF = '#/components/schemas/ErrorBody';
const CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/**
 * The error codes each operation ("POST /notifications") documents, read back from the error texts its error-body
 * responses list (api.route joins them with "; " under their status). Throws when an error response names a text
 * that no code of ERROR_TABLE has at that status: a code the table does not know.
 */
export function documentedErrorCodes(document: OpenApiResponses): Map<string, Set<ErrorCode>> {
  const byOperation = new Map<string, Set<ErrorCode>>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${path}`;
      const codes = new Set<ErrorCode>();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (response.content?.['application/json']?.schema?.$ref !== ERROR_BODY_REF) continue;
        const known = CODES.filter((code) => ERROR_TABLE[code].status === Number(status));
        // The first part may be the route's own description of that status; every other part is an error text.
        const [first, ...rest] = response.description.split('; ');
        for (const text of rest) {
          const code = known.find((c) => ERROR_TABLE[c].error === text);
          if (code === undefined) throw new Error(`${name} documents ${status} "${text}", which is no error of ERROR_TABLE at ${status}`);
          codes.add(code);
        }
        const firstCode = known.find((c) => ERROR_TABLE[c].error === first);
        if (firstCode !== undefined) codes.add(firstCode);
        else if (rest.length === 0) throw new Error(`${name} documents ${status} "${first}", which is no error of ERROR_TABLE at ${status}`);
      }
      byOperation.set(name, codes);
    }
  }
  return byOperation;
}

/**
 * The codes an operation can raise but does not document, as text: those of `expected` (operation → codes its
 * use-case raises) and, for every operation taking a JSON body, JSON_BODY_ERRORS.
 */
export function undocumentedErrors(document: OpenApiResponses, expected: Record<string, readonly ErrorCode[]>): string[] {
  const documented = documentedErrorCodes(document);
  const missing = Object.keys(expected)
    .filter((operation) => !documented.has(operation))
    .map((operation) => `${operation} is not in the document`);
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${path}`;
      const raised = [...(expected[name] ?? []), ...(operation.requestBody?.content?.['application/json'] ? JSON_BODY_ERRORS : [])];
      const listed = documented.get(name) ?? new Set();
      missing.push(...[...new Set(raised)].filter((code) => !listed.has(code)).map((code) => `${name} omits ${code}`));
    }
  }
  return missing;
}
