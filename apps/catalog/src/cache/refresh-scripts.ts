/**
 * Lua scripts of the refresh queue. Every key they touch carries the hash tag `{refresh}`, so each
 * script runs in one Redis Cluster slot.
 *
 * Demand is counted per window of CACHE_DEMAND_WINDOW_S in a sorted set per window (`demand:<n>`); a
 * key's demand over the sliding window is this window's count plus the previous one's, weighted by
 * how much of it still lies inside the window.
 */

/**
 * KEYS: demand of this window, queue of the key's upstream host. ARGV: key, keepMs.
 * Counts one request for the key; a key already queued moves up by one.
 */
export const NOTE_DEMAND_SCRIPT = `
redis.call('ZINCRBY', KEYS[1], 1, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', 'INCR', 1, ARGV[1])
return 1
`;

/**
 * KEYS: queue, jobs, demand of this window, demand of the previous one. ARGV: key, job JSON, weight
 * of the previous window, keepMs, most keys queued per host.
 * Queues a refresh of the key (once: a key already queued stays as it is) ordered by its demand; when
 * the queue is over its bound, the least requested keys leave it. Returns 1 when queued now.
 */
export const ENQUEUE_SCRIPT = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local now = tonumber(redis.call('ZSCORE', KEYS[3], ARGV[1]) or '0')
local before = tonumber(redis.call('ZSCORE', KEYS[4], ARGV[1]) or '0')
redis.call('ZADD', KEYS[1], now + before * tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[5])
if over > 0 then
  local dropped = redis.call('ZPOPMIN', KEYS[1], over)
  for i = 1, #dropped, 2 do redis.call('HDEL', KEYS[2], dropped[i]) end
end
return 1
`;

/**
 * KEYS: queue, jobs. ARGV: n. Takes the n most requested keys off the queue.
 * Returns {key, demand, job JSON, ...}, most requested first.
 */
export const TAKE_SCRIPT = `
local popped = redis.call('ZPOPMAX', KEYS[1], ARGV[1])
local out = {}
for i = 1, #popped, 2 do
  local job = redis.call('HGET', KEYS[2], popped[i])
  redis.call('HDEL', KEYS[2], popped[i])
  if job then
    out[#out + 1] = popped[i]
    out[#out + 1] = popped[i + 1]
    out[#out + 1] = job
  end
end
return out
`;

/**
 * KEYS: queue, jobs. ARGV: keepMs, then key, demand, job JSON, ... Puts back keys taken but not
 * refreshed this time; a key queued again meanwhile keeps the higher demand.
 */
export const PUT_BACK_SCRIPT = `
for i = 2, #ARGV, 3 do
  redis.call('ZADD', KEYS[1], 'GT', ARGV[i + 1], ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`;

/**
 * KEYS: the host's refresh turn. ARGV: ms until the next turn. Answers 1 to the one replica whose turn
 * it is (the key did not exist), 0 to the others.
 */
export const TURN_SCRIPT = `
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 1 end
return 0
`;
