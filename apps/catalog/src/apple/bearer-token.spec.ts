import { findBearerToken, moduleScriptSrc, tokenExpiry } from './bearer-token.js';

const jwt = (claims: object) =>
  `${Buffer.from('{"alg":"ES256","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;

describe('moduleScriptSrc', () => {
  it('finds the module script the page head loads, whatever the attribute order and quoting', () => {
    const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="/legacy.js"></script>
<script crossorigin type=module src='/assets/index~a1b2c3.js'></script></head><body><script type="module" src="/body.js"></script></body></html>`;
    expect(moduleScriptSrc(page)).toBe('/assets/index~a1b2c3.js');
  });

  it('finds nothing without a head or a module script in it', () => {
    expect(moduleScriptSrc('<html><body><script type="module" src="/x.js"></script></body></html>')).toBeUndefined();
    expect(moduleScriptSrc('<html><head><script src="/x.js"></script></head></html>')).toBeUndefined();
  });
});

describe('findBearerToken', () => {
  it('reads the JWT string literal of a script, not other eyJ strings', () => {
    const token = jwt({ exp: 1 });
    expect(token.startsWith('eyJhbGci')).toBe(true);
    expect(findBearerToken(`const a="eyJub3QiOiJhIGp3dCJ9",b="${token}";export{b};`)).toBe(token);
    expect(findBearerToken('const a="";export{a};')).toBeUndefined();
  });
});

describe('tokenExpiry', () => {
  it('reads exp in milliseconds, or nothing', () => {
    expect(tokenExpiry(jwt({ exp: 1_800_000_000 }))).toBe(1_800_000_000_000);
    expect(tokenExpiry(jwt({ iat: 1 }))).toBeUndefined();
    expect(tokenExpiry('not-a-jwt')).toBeUndefined();
  });
});
