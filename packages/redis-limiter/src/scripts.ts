/**
 * Server-side scripts: each limiter call is one script and one round trip, on the Redis
 * server's clock. KEYS are per-window prefixes `<prefix>{<subject>}:<name>` (one subject's
 * counters share a hash slot); the window start is appended inside the script.
 * @module
 */

/** ARGV: mode ("consume" | "peek"), clock offset ms, then period ms and limit per key. Returns {allowed, now, count1, start1, …}. */
export const DECIDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
local allowed = 1
local out = {}
local keys = {}
for i = 1, #KEYS do
  local period = tonumber(ARGV[1 + i * 2])
  local limit = tonumber(ARGV[2 + i * 2])
  local start = now - (now % period)
  local key = KEYS[i] .. ':' .. start
  local count = tonumber(redis.call('GET', key) or '0')
  if count >= limit then allowed = 0 end
  keys[i] = { key, start + period }
  out[#out + 1] = count
  out[#out + 1] = start
end
if allowed == 1 and ARGV[1] == 'consume' then
  for i = 1, #KEYS do
    redis.call('INCR', keys[i][1])
    redis.call('PEXPIREAT', keys[i][1], keys[i][2] + 60000)
  end
end
local result = { allowed, now }
for i = 1, #out do result[#result + 1] = out[i] end
return result
`;

/** ARGV: the window start of each key. Gives one unit back to windows that still exist. */
export const REFUND = `
for i = 1, #KEYS do
  local key = KEYS[i] .. ':' .. ARGV[i]
  local count = tonumber(redis.call('GET', key) or '0')
  if count > 0 then redis.call('DECR', key) end
end
return 1
`;
