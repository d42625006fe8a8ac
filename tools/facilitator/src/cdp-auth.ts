import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';

/** Where Coinbase's CDP facilitator lives: the host and path every CDP JWT's `uris` claim names. */
export const CDP_API_HOST = 'api.cdp.coinbase.com';
export const CDP_X402_BASE_PATH = '/platform/v2/x402';
/** The longest life CDP's SDK gives a request JWT (generateJwt's default `expiresIn`). */
export const CDP_JWT_MAX_LIFETIME_SECONDS = 120;

/** A CDP API key as the operator holds it: its id and its secret (base64 Ed25519, or a PEM EC key). */
export interface CdpApiKey {
  id: string;
  secret: string;
}

/**
 * The public half of a CDP API key secret, as @coinbase/cdp-sdk reads it: 64 bytes of base64 are an
 * Ed25519 seed followed by its public key; otherwise a PKCS#8 PEM EC (P-256) key.
 */
export function cdpPublicKey(secret: string): { key: KeyObject; algorithm: 'EdDSA' | 'ES256' } {
  const raw = Buffer.from(secret, 'base64');
  if (!secret.includes('-----BEGIN') && raw.length === 64) {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: raw.subarray(32).toString('base64url') };
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), algorithm: 'EdDSA' };
  }
  const key = createPublicKey(createPrivateKey(secret));
  if (key.asymmetricKeyType !== 'ec') throw new Error('a CDP API key secret is a base64 Ed25519 key or a PEM EC key');
  return { key, algorithm: 'ES256' };
}

/**
 * Checks request JWTs the way CDP documents them and @coinbase/cdp-sdk's generateJwt makes them:
 * header `alg` ES256 or EdDSA matching the key, `kid` the key id, `typ` JWT and a random `nonce`
 * (never accepted twice while the token lives); claims `iss` "cdp", `sub` the key id, `nbf` and `exp`
 * bracketing now with at most 120 s between them, and `uris` exactly ["<METHOD> <host><base path><path>"].
 */
export class CdpJwtVerifier {
  private readonly keys: Map<string, { key: KeyObject; algorithm: 'EdDSA' | 'ES256' }>;
  private readonly seenNonces = new Map<string, number>();

  constructor(
    keys: CdpApiKey[],
    private readonly host = CDP_API_HOST,
    private readonly basePath = CDP_X402_BASE_PATH,
  ) {
    this.keys = new Map(keys.map((k) => [k.id, cdpPublicKey(k.secret)]));
  }

  /** Resolves when `authorization` carries a valid JWT for `method` on `path`; otherwise rejects with the reason. */
  async verify(authorization: string | undefined, method: string, path: string): Promise<void> {
    const token = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new Error('no bearer JWT');
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new Error('not a JWT');
    }
    const kid = typeof header.kid === 'string' ? header.kid : '';
    const known = this.keys.get(kid);
    if (!known) throw new Error('unknown key id (kid)');
    if (header.typ !== 'JWT') throw new Error('typ must be JWT');
    if (typeof header.nonce !== 'string' || !/^[0-9a-f]{32}$/.test(header.nonce))
      throw new Error('nonce missing from the header');
    let payload;
    try {
      ({ payload } = await jwtVerify(token, known.key, {
        algorithms: [known.algorithm],
        issuer: 'cdp',
        subject: kid,
        requiredClaims: ['nbf', 'exp', 'uris'],
      }));
    } catch (error) {
      const reason =
        error instanceof joseErrors.JWTExpired
          ? 'token expired'
          : error instanceof joseErrors.JWSSignatureVerificationFailed
            ? 'signature does not verify'
            : error instanceof Error
              ? error.message
              : String(error);
      throw new Error(reason, { cause: error });
    }
    const { nbf = 0, exp = 0 } = payload;
    if (exp - nbf > CDP_JWT_MAX_LIFETIME_SECONDS)
      throw new Error(`token lives longer than ${CDP_JWT_MAX_LIFETIME_SECONDS} s`);
    const expected = `${method.toUpperCase()} ${this.host}${this.basePath}${path}`;
    const uris = payload.uris;
    if (!Array.isArray(uris) || uris.length !== 1 || uris[0] !== expected)
      throw new Error(`uris must be ["${expected}"]`);
    this.forgetExpiredNonces();
    if (this.seenNonces.has(header.nonce)) throw new Error('nonce already used');
    this.seenNonces.set(header.nonce, exp);
  }

  private forgetExpiredNonces(): void {
    const now = Math.floor(Date.now() / 1000);
    for (const [nonce, exp] of this.seenNonces) if (exp < now) this.seenNonces.delete(nonce);
  }
}
