import type { Response } from 'express';
import { AppError } from '../errors.js';
import type { Grant, RouteAccess, Scope } from './scopes.js';

/** Who is calling: a service without a key (open), the API key, a token, or nobody (a public path without a key). */
export type PrincipalKind = 'open' | 'key' | 'token' | 'anonymous';

/** Called when a token stops being valid (revoked, rotated, changed or expired); returns the unsubscribe. */
export type EndWatch = (onEnd: () => void) => () => void;

/** A device as the device scopes see it. */
export interface DeviceTarget {
  uuid: string;
  family: string;
}

/** The caller of one request and what it may do. */
export class Principal {
  static readonly open = new Principal('open', [{ scope: 'admin' }]);
  static readonly key = new Principal('key', [{ scope: 'admin' }], 'API_KEY');
  static readonly anonymous = new Principal('anonymous', []);

  private readonly grants: ReadonlyMap<Scope, Grant>;

  constructor(
    readonly kind: PrincipalKind,
    grants: readonly Grant[],
    readonly label?: string,
    readonly tokenId?: string,
    private readonly endWatch?: EndWatch,
  ) {
    this.grants = new Map(grants.map((g) => [g.scope, g]));
  }

  get isAdmin(): boolean {
    return this.grants.has('admin');
  }

  /** The grant that allows `scope`, unlimited for admin; undefined when the caller lacks it. */
  grant(scope: Scope): Grant | undefined {
    return this.isAdmin ? { scope } : this.grants.get(scope);
  }

  has(scope: Scope): boolean {
    return this.grant(scope) !== undefined;
  }

  /** Every grant, as the token holds them. */
  get scopes(): Grant[] {
    return [...this.grants.values()];
  }

  /** Throws UNAUTHORIZED or SCOPE_MISSING unless this caller may call a route with this access. */
  require(access: RouteAccess): void {
    if (access === 'public') return;
    if (this.kind === 'anonymous') throw new AppError('UNAUTHORIZED');
    if (access !== 'authenticated' && !this.has(access)) throw scopeMissing(access);
  }

  /** Whether `scope` reaches this recipient (its grant lists no recipients, or lists this one). */
  mayReach(scope: 'notifications:send' | 'notifications:read', recipient: string): boolean {
    const grant = this.grant(scope);
    return grant !== undefined && (grant.recipients === undefined || grant.recipients.includes(recipient));
  }

  /** Throws SCOPE_MISSING unless `scope` reaches this recipient. */
  requireRecipient(scope: 'notifications:send' | 'notifications:read', recipient: string): void {
    if (!this.mayReach(scope, recipient)) throw scopeMissing(scope, `for recipient "${recipient}"`);
  }

  /** The recipients `scope` is limited to; undefined: all of them. */
  recipientsOf(scope: 'notifications:send' | 'notifications:read'): readonly string[] | undefined {
    const grant = this.grant(scope);
    return grant === undefined ? [] : grant.recipients;
  }

  /** Whether devices:control reaches this device (its uuid and family pass every limit of the grant). */
  mayControl(device: DeviceTarget): boolean {
    const grant = this.grant('devices:control');
    if (!grant) return false;
    if (grant.devices && !grant.devices.includes(device.uuid)) return false;
    if (grant.families && !grant.families.includes(device.family)) return false;
    return !grant.exceptFamilies?.includes(device.family);
  }

  /** Throws SCOPE_MISSING unless devices:control reaches this device. */
  requireControl(device: DeviceTarget): void {
    if (!this.mayControl(device)) throw scopeMissing('devices:control', `for device ${device.uuid} (${device.family})`);
  }

  /** Calls `onEnd` once this caller's token stops being valid; keys and open services never end. */
  onEnd(onEnd: () => void): () => void {
    return this.endWatch ? this.endWatch(onEnd) : () => {};
  }
}

function scopeMissing(scope: Scope, what = ''): AppError {
  return new AppError('SCOPE_MISSING', `This token lacks the ${scope} scope${what ? ` ${what}` : ''}`, {
    solution: `Use a token with the ${scope} scope${what ? ` ${what}` : ''} (an admin creates one with POST /tokens)`,
  });
}

/** The caller of this request (set by the auth middleware); a service without a key has everyone as `open`. */
export function principalOf(res: Response): Principal {
  return (res.locals as { principal?: Principal }).principal ?? Principal.open;
}

export function setPrincipal(res: Response, principal: Principal): void {
  (res.locals as { principal?: Principal }).principal = principal;
}
