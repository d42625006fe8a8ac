/**
 * Lua scripts of the per-host guards shared by the replicas. Both read the clock of Redis (TIME), so
 * replicas with skewed clocks still agree.
 */

/**
 * Token buckets of one upstream host, one per egress identity, with reservations. KEYS: the buckets
 * (one hash slot: they share a hash tag). ARGV: perMinute, burst, maxWaitMs, first (0-based index to
 * start looking at, so egresses take turns).
 * Returns {1, waitMs, index, dueAt}: a token is taken from bucket `index`, one with a token now if any,
 * else the one whose token frees up first, within maxWaitMs (the caller sleeps waitMs, so callers queue
 * in order instead of retrying in a herd), due at dueAt (ms, Redis's clock); or {0, retryAfterMs, -1}:
 * refused, nothing taken.
 */
export const TOKEN_BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local perMs = tonumber(ARGV[1]) / 60000
local burst = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])
local n = #KEYS
local best, bestTokens, bestAt = -1, -math.huge, now
for step = 0, n - 1 do
  local i = (tonumber(ARGV[4]) + step) % n + 1
  local state = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens = tonumber(state[1])
  local at = tonumber(state[2])
  if tokens == nil or at == nil then
    tokens = burst
    at = now
  end
  if now > at then
    tokens = math.min(burst, tokens + (now - at) * perMs)
    at = now
  end
  if tokens > bestTokens then
    best, bestTokens, bestAt = i, tokens, at
    if tokens >= 1 then break end
  end
end
local left = bestTokens - 1
local wait = 0
if left < 0 then wait = math.ceil(-left / perMs) end
if wait > maxWait then return {0, math.ceil((1 - bestTokens) / perMs), -1} end
redis.call('HSET', KEYS[best], 'tokens', tostring(left), 'at', tostring(bestAt))
redis.call('PEXPIRE', KEYS[best], math.ceil((burst - left) / perMs) + 1000)
return {1, wait, best - 1, now + wait}
`;

/**
 * Reads the buckets of one upstream host without taking anything. KEYS: the buckets. ARGV: perMinute,
 * burst. Returns {whole tokens available now over all egresses, ms until the next token frees up
 * (0 when one is there)}.
 */
export const TOKEN_BUCKET_PEEK_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local perMs = tonumber(ARGV[1]) / 60000
local burst = tonumber(ARGV[2])
local whole, most = 0, -math.huge
for i = 1, #KEYS do
  local state = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens = tonumber(state[1]) or burst
  local at = tonumber(state[2]) or now
  if now > at then tokens = math.min(burst, tokens + (now - at) * perMs) end
  if tokens >= 1 then whole = whole + math.floor(tokens) end
  if tokens > most then most = tokens end
end
local wait = 0
if most < 1 then wait = math.ceil((1 - most) / perMs) end
return {whole, wait}
`;

/**
 * KEYS: breaker. ARGV: probeSlotMs. Returns {verdict, retryAfterMs, cause, failures}:
 * 'allow' (closed), 'deny' (open, or a probe is out), 'probe' (the open period is over: this caller
 * is the one request let through to test the host).
 */
export const BREAKER_CHECK_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'state', 'until', 'cause', 'failures')
if not s[1] then return {'allow', 0, '', tonumber(s[4]) or 0} end
local untilMs = tonumber(s[2]) or 0
if now < untilMs then return {'deny', untilMs - now, s[3] or '', 0} end
redis.call('HSET', KEYS[1], 'state', 'probing', 'until', tostring(now + tonumber(ARGV[1])))
return {'probe', 0, s[3] or '', 0}
`;

/**
 * KEYS: breaker. ARGV: outcome ('success' | 'failure' | 'throttle'), retryAfterMs (-1: none),
 * failureThreshold, openMs, throttleOpenMs, maxOpenMs, cause, failureWindowMs.
 * Returns how long the breaker is now open, ms (0: closed).
 *
 * - success: closed, failures and backoff forgotten; unless open (the answer of a request sent
 *   before it opened says nothing about now).
 * - throttle (403 empty, 429): open at once, for Retry-After when given; a failed probe doubles the
 *   previous period. Throttling arriving while open extends the period, never shortens it.
 * - failure (5xx, timeout, unreachable): counted; open after failureThreshold in a row (a success
 *   resets the count; failures older than failureWindowMs are forgotten). A failed probe reopens for
 *   twice the previous period. Failures of requests that were in flight when it opened change nothing.
 */
export const BREAKER_RECORD_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local outcome = ARGV[1]
local s = redis.call('HMGET', KEYS[1], 'state', 'until', 'last')
local state = s[1]
local untilMs = tonumber(s[2]) or 0
local last = tonumber(s[3]) or 0
if outcome == 'success' then
  if state == 'open' then return math.max(0, untilMs - now) end
  redis.call('DEL', KEYS[1])
  return 0
end
local retryAfter = tonumber(ARGV[2])
local openMs = tonumber(ARGV[4])
local maxOpen = tonumber(ARGV[6])
local period
if outcome == 'throttle' then
  if retryAfter >= 0 then
    period = retryAfter
  elseif state == 'probing' then
    period = math.max(tonumber(ARGV[5]), last * 2)
  else
    period = tonumber(ARGV[5])
  end
else
  if state == 'open' then return math.max(0, untilMs - now) end
  if state == 'probing' then
    period = math.max(openMs, last * 2)
  else
    local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
    redis.call('PEXPIRE', KEYS[1], ARGV[8])
    if failures < tonumber(ARGV[3]) then return 0 end
    period = openMs
  end
end
period = math.min(period, maxOpen)
local newUntil = now + period
if state == 'open' and untilMs > newUntil then newUntil = untilMs end
redis.call('HSET', KEYS[1], 'state', 'open', 'until', tostring(newUntil), 'cause', ARGV[7], 'last', tostring(period))
redis.call('HDEL', KEYS[1], 'failures')
redis.call('PEXPIRE', KEYS[1], newUntil - now + 2 * maxOpen)
return newUntil - now
`;
