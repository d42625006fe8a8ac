/**
 * Lua scripts of the shared cache. Each runs atomically, so "is it fresh? has it just failed? may I
 * load it?" is one decision even with many replicas asking at once.
 *
 * An entry is `<fetchedAtMs>|<1 if not found, else 0>|[<source name>|]<JSON>`, so scripts can judge
 * its age without decoding the rest.
 */

/**
 * KEYS: entry, lock, failure. ARGV: nowMs, freshMs, notFoundMs, lockToken, lockTtlMs, serveStaleMs.
 * Returns {state, entry, failure}: 'fresh' (serve entry), 'stale' (a found entry past its freshness
 * but younger than serveStaleMs: serve it and queue a refresh; 0 never answers it), 'failed' (a load
 * failed moments ago), 'locked' (the caller now holds the lock and loads), 'busy' (another caller is
 * loading).
 */
export const PROBE_SCRIPT = `
local entry = redis.call('GET', KEYS[1])
if entry then
  local t, nf = string.match(entry, '^(%d+)|(%d)|')
  if t then
    local ttl = tonumber(ARGV[2])
    if nf == '1' then ttl = tonumber(ARGV[3]) end
    if tonumber(ARGV[1]) - tonumber(t) < ttl then return {'fresh', entry, ''} end
    if nf == '0' and tonumber(ARGV[1]) - tonumber(t) < tonumber(ARGV[6]) then return {'stale', entry, ''} end
  end
end
local failure = redis.call('GET', KEYS[3])
if failure then return {'failed', entry or '', failure} end
if redis.call('SET', KEYS[2], ARGV[4], 'NX', 'PX', ARGV[5]) then return {'locked', entry or '', ''} end
return {'busy', entry or '', ''}
`;

/** KEYS: entry, lock. ARGV: lockToken, entry value, keepMs, channel. Stores, unlocks, tells the waiters. */
export const FILL_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[4], KEYS[1])
return 1
`;

/**
 * KEYS: entry, lock, failure. ARGV: lockToken, failure JSON, failureTtlMs, channel. Remembers the
 * failure for a moment (0: not at all), unlocks, tells the waiters.
 */
export const FAIL_SCRIPT = `
if tonumber(ARGV[3]) > 0 then redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[4], KEYS[1])
return 1
`;

/** KEYS: lock. ARGV: lockToken, lockTtlMs. Extends the lock while its holder still works. */
export const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
