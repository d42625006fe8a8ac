/**
 * Lua run atomically inside Redis. Amounts are canonical decimal strings (no sign, no leading zeros)
 * and are never turned into Lua numbers, which are doubles: comparisons are done on the strings and
 * arithmetic by HINCRBY, which is exact 64-bit integer arithmetic in Redis itself.
 *
 * A key's hash holds: id (the api_keys id), bal (balance, µUSD), top (the topped-up total this balance
 * already includes, the sync watermark) and rev ("1" once revoked).
 */

/** a >= b for canonical non-negative decimal integer strings. */
const GTE = `
local function gte(a, b)
  if #a ~= #b then return #a > #b end
  return a >= b
end`;

/** KEYS[1] the key's hash, KEYS[2] its unknown marker: `state` is {id, bal, rev}, or the script ends unknown/missing. */
const KEY_STATE = `
local state = redis.call('HMGET', KEYS[1], 'id', 'bal', 'rev')
if not state[1] then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {'unknown'} end
  return {'missing'}
end`;

/**
 * KEYS: key hash, unknown marker, ledger stream. ARGV: amount, debit id, route, charged-at (ms).
 * The ledger entry is written before the balance changes: should the second write fail, the debit is
 * in the ledger but the balance is untouched, which can only favour the caller.
 */
export const DEBIT_SCRIPT = `${GTE}${KEY_STATE}
if state[3] == '1' then return {'revoked'} end
if not gte(state[2], ARGV[1]) then return {'insufficient', state[2]} end
redis.call('XADD', KEYS[3], '*', 'debit', ARGV[2], 'key', state[1], 'amount', ARGV[1], 'route', ARGV[3], 'at', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'bal', '-' .. ARGV[1])
return {'ok', redis.call('HGET', KEYS[1], 'bal')}
`;

/**
 * KEYS: key hash, unknown marker, the shard's holds (a sorted set by deadline). ARGV: amount, hold
 * (the set's member, naming the key and the amount), deadline (ms). Takes the amount from the balance
 * unless that would go below zero, and keeps it held until captured, released or past its deadline.
 */
export const RESERVE_SCRIPT = `${GTE}${KEY_STATE}
if state[3] == '1' then return {'revoked'} end
if not gte(state[2], ARGV[1]) then return {'insufficient', state[2]} end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'bal', '-' .. ARGV[1])
return {'ok', redis.call('HGET', KEYS[1], 'bal')}
`;

/**
 * KEYS: key hash, unknown marker, the shard's holds, ledger stream. ARGV: amount, hold, debit id, route,
 * charged-at (ms). A held amount becomes a debit in the ledger (the balance already excludes it). A hold
 * that is gone (released past its deadline, or lost with Redis) is charged afresh as a debit would be,
 * so the call is paid exactly once or not delivered. A revoked key's hold is given back: revocation wins.
 */
export const CAPTURE_SCRIPT = `${GTE}${KEY_STATE}
local held = redis.call('ZREM', KEYS[3], ARGV[2]) == 1
if state[3] == '1' then
  if held then redis.call('HINCRBY', KEYS[1], 'bal', ARGV[1]) end
  return {'revoked'}
end
if not held and not gte(state[2], ARGV[1]) then return {'insufficient', state[2]} end
redis.call('XADD', KEYS[4], '*', 'debit', ARGV[3], 'key', state[1], 'amount', ARGV[1], 'route', ARGV[4], 'at', ARGV[5])
if not held then redis.call('HINCRBY', KEYS[1], 'bal', '-' .. ARGV[1]) end
return {'ok', redis.call('HGET', KEYS[1], 'bal')}
`;

/**
 * KEYS: key hash, the shard's holds. ARGV: hold, amount. Gives a held amount back, once: a hold already
 * captured or released is not in the set.
 */
export const RELEASE_SCRIPT = `
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'bal', ARGV[2]) end
return 1
`;

/** KEYS: key hash, unknown marker. Reads without changing anything. */
export const BALANCE_SCRIPT = `
local state = redis.call('HMGET', KEYS[1], 'bal', 'rev')
if not state[1] then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {'unknown'} end
  return {'missing'}
end
if state[2] == '1' then return {'revoked'} end
return {'ok', state[1]}
`;

/**
 * KEYS: key hash, unknown marker. ARGV: id, balance, topped-up total, revoked ("1"/"0"), all read from
 * Postgres in one snapshot. Used by loads, top-ups and revocations alike, in any order:
 *  - an absent hash is created from the snapshot;
 *  - a present hash keeps its balance (Redis is ahead of Postgres on spending) and only gains the
 *    top-ups it has not seen yet: the difference between the snapshot's topped-up total and its own;
 *  - revoked is never cleared.
 * So a load that read Postgres before a top-up committed cannot undo the top-up, and a stale load cannot
 * un-revoke a key. Returns bal, top, rev after the merge.
 */
export const SYNC_SCRIPT = `${GTE}
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'id', ARGV[1], 'bal', ARGV[2], 'top', ARGV[3], 'rev', ARGV[4])
else
  local top = redis.call('HGET', KEYS[1], 'top')
  if ARGV[3] ~= top and gte(ARGV[3], top) then
    redis.call('HINCRBY', KEYS[1], 'bal', ARGV[3])
    if top ~= '0' then redis.call('HINCRBY', KEYS[1], 'bal', '-' .. top) end
    redis.call('HSET', KEYS[1], 'top', ARGV[3])
  end
  if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'rev', '1') end
end
return redis.call('HMGET', KEYS[1], 'bal', 'top', 'rev')
`;

/**
 * KEYS: key hash, unknown marker. ARGV: ttl (ms). Remembers that Postgres does not know a key hash,
 * unless a sync created the key in the meantime.
 */
export const MARK_UNKNOWN_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return 1
`;
