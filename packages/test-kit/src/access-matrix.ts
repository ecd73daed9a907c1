import { isDeepStrictEqual } from 'node:util';
import type { Grant, Scope } from '@homeops/common';

/** One operation of a live /openapi.json and who may call it, as the document says (x-required-scope). */
export interface MatrixRoute {
  /** `METHOD /path`, as the matrix's expectations are keyed. */
  key: string;
  method: string;
  path: string;
  access: string;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document with its access: a route added to the app is in the matrix without anyone adding it. */
export function matrixRoutesOf(document: { paths: Record<string, Record<string, { 'x-required-scope'?: string }>> }): MatrixRoute[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        access: op['x-required-scope'] ?? 'undocumented',
      })),
  );
}

/**
 * How a route meets the owners of a service's resources (recipients, devices):
 * - `owned`: it reaches one owner's resource, named in the path or body or stored under the path's id: a caller limited
 *   to another owner is refused (403 or 404) and the owner's state is left as it was;
 * - `listing`: it answers for every owner, showing only those the caller's limit reaches;
 * - `unowned`: it belongs to no owner (the service, its tokens, its metrics).
 */
export type Ownership = 'owned' | 'listing' | 'unowned';

/** A request of the matrix. */
export interface MatrixRequest {
  target: string;
  body?: unknown;
}

/** What the matrix reads of an answer. */
export interface MatrixAnswer {
  status: number;
  body: string;
}

/** What a route's ownership is, and a request that reaches `owner`'s resource (made fresh for each cell). */
export interface RouteExpectation<O> {
  ownership: Ownership;
  /**
   * A request a holder of the route's scope without limits gets a 2xx for, about `owner` (its resource made first if
   * needed); `caller` is the owner the caller acts for, named where a request names itself (a plan replaced under
   * another owner's key names the caller's recipient).
   */
  request(owner: O, caller: O): Promise<MatrixRequest>;
}

/** A service under the matrix: how to call it, its owners and scopes, and one expectation per documented route. */
export interface AccessMatrix<O> {
  /** Own and someone else's: limited callers are limited to the first and reach for the second. */
  owners: readonly [O, O];
  /** The scopes the service knows: each gets a token without limits. */
  scopes: readonly Scope[];
  /** `scope` limited to `owner`; undefined when the scope takes no owner limit (then no limited caller is tried). */
  limited(scope: Scope, owner: O): Grant | undefined;
  /** Makes a token with these grants (with the API key) and resolves its secret. */
  issue(grants: Grant[]): Promise<string>;
  /** Sends the request with `secret` as the bearer (none when undefined). */
  send(method: string, request: MatrixRequest, secret: string | undefined): Promise<MatrixAnswer>;
  /** What of `owner` a request could change (its records, the commands that reached its devices), compared deeply. */
  stateOf(owner: O): Promise<unknown>;
  /** Whether a listing's answer shows something of `owner`. */
  shows(body: string, owner: O): boolean;
  /** By `METHOD /path` of the document: a route without one fails the matrix. */
  expectations: Record<string, RouteExpectation<O>>;
}

/** Documented routes the matrix has no expectation for (a new route must declare its ownership), and expectations of routes gone. */
export function undeclaredRoutes(routes: readonly MatrixRoute[], expectations: Record<string, unknown>): { missing: string[]; stale: string[] } {
  const keys = routes.map((r) => r.key);
  return { missing: keys.filter((key) => !(key in expectations)), stale: Object.keys(expectations).filter((key) => !keys.includes(key)) };
}

/** The callers of every route: no token, one token per scope, and the route's scope limited to the first owner. */
export interface MatrixCallers {
  scoped: Map<Scope, string>;
  limited: Map<Scope, string>;
}

/** Issues the matrix's tokens once (a row per scope, and each scope that takes a limit, limited to the first owner). */
export async function issueMatrixCallers<O>(matrix: AccessMatrix<O>): Promise<MatrixCallers> {
  const scoped = new Map<Scope, string>();
  const limited = new Map<Scope, string>();
  for (const scope of matrix.scopes) {
    scoped.set(scope, await matrix.issue([{ scope }]));
    const grant = matrix.limited(scope, matrix.owners[0]);
    if (grant) limited.set(scope, await matrix.issue([grant]));
  }
  return { scoped, limited };
}

const is2xx = (status: number) => status >= 200 && status < 300;

/**
 * Calls `route` as every caller and resolves the cells that answered otherwise than its access and ownership say:
 * no token 401 (2xx when public); a token without the scope 403 and nothing changed; a token with it 2xx, on another
 * owner's resource too; limited to the first owner, 2xx on its own and, on the second's, 403/404 with the second
 * owner's state unchanged (owned), or 2xx showing nothing of it (listing).
 */
export async function accessMatrixMismatches<O>(matrix: AccessMatrix<O>, callers: MatrixCallers, route: MatrixRoute): Promise<string[]> {
  const expectation = matrix.expectations[route.key];
  if (!expectation) return [`${route.key} has no expectation: declare its ownership in the access matrix`];
  const [own, other] = matrix.owners;
  const wrong: string[] = [];
  const cell = async (who: string, secret: string | undefined, owner: O, expect: 'allowed' | 401 | 403 | 'refused' | 'hidden', caller = owner) => {
    const request = await expectation.request(owner, caller);
    const before = await matrix.stateOf(owner);
    const answer = await matrix.send(route.method, request, secret);
    const after = await matrix.stateOf(owner);
    const got = `${answer.status} ${answer.body.slice(0, 160)}`;
    const ok =
      expect === 'allowed'
        ? is2xx(answer.status)
        : expect === 'hidden'
          ? is2xx(answer.status) && !matrix.shows(answer.body, owner)
          : expect === 'refused'
            ? answer.status === 403 || answer.status === 404
            : answer.status === expect;
    if (!ok) wrong.push(`${route.key} ${request.target} by ${who}: expected ${expect}, got ${got}`);
    if (expect !== 'allowed' && expect !== 'hidden' && !isDeepStrictEqual(before, after)) {
      wrong.push(`${route.key} by ${who}: refused, yet the state of ${String(owner)} changed`);
    }
  };
  const open = route.access === 'public';
  await cell('no token', undefined, own, open ? 'allowed' : 401);
  for (const [scope, secret] of callers.scoped) {
    const holds = open || route.access === 'authenticated' || scope === 'admin' || scope === route.access;
    await cell(`a ${scope} token`, secret, other, holds ? 'allowed' : 403);
  }
  const limited = callers.limited.get(route.access as Scope);
  if (limited) {
    const who = `a ${route.access} token limited to ${String(own)}`;
    await cell(who, limited, own, 'allowed');
    await cell(who, limited, other, expectation.ownership === 'owned' ? 'refused' : expectation.ownership === 'listing' ? 'hidden' : 'allowed', own);
  }
  return wrong;
}
