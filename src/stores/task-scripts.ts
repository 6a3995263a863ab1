// The Lua scripts of the Redis task store: each change that reads and writes runs atomically in
// Redis, so that two instances acting on one task at once cannot both win.

const TERMINAL = "s == 'completed' or s == 'failed' or s == 'cancelled'";

// KEYS: the task, the caller's index (what it lists), the quota key's index (what counts against
// its cap: for anonymous HTTP the peer address's, shared by its sessions; for an authenticated
// caller the same key as KEYS[2]). ARGV: max per quota key, ttl, key prefix, running-set key, task
// id, index prefix, fields… A finished task evicted to make room leaves both indexes.
export const CREATE = `
local max, ttl, prefix = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local foreign = 0
for i, key in ipairs({KEYS[2], KEYS[3], ARGV[4]}) do
  local t = redis.call('TYPE', key).ok
  local expected = i < 3 and 'zset' or 'set'
  if t ~= 'none' and t ~= expected then redis.call('DEL', key); foreign = 1 end
end
local counter = redis.call('TYPE', prefix .. 'seq').ok
if counter ~= 'none' and (counter ~= 'string' or not tonumber(redis.call('GET', prefix .. 'seq'))) then
  redis.call('DEL', prefix .. 'seq'); foreign = 1
end
if redis.call('ZCARD', KEYS[3]) >= max then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    local s = redis.pcall('HGET', prefix .. id, 'status')
    if type(s) ~= 'string' then
      redis.call('ZREM', KEYS[3], id)
    elseif ${TERMINAL} then
      local owner = redis.call('HGET', prefix .. id, 'caller')
      redis.call('DEL', prefix .. id)
      redis.call('ZREM', KEYS[3], id)
      if owner then redis.pcall('ZREM', ARGV[6] .. owner, id) end
    end
    if redis.call('ZCARD', KEYS[3]) < max then break end
  end
  if redis.call('ZCARD', KEYS[3]) >= max then return {-1, foreign} end
end
local seq = redis.call('INCR', prefix .. 'seq')
redis.call('HSET', KEYS[1], 'seq', seq, unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ttl)
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], seq, ARGV[5])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
redis.call('SADD', ARGV[4], ARGV[5])
return {seq, foreign}
`;

// KEYS: the task. ARGV: status, now, has message (1/0), message, outcome JSON or '', running-set
// prefix, input requests JSON or '', the result's bytes or '' (for a result outcome), bytes of
// results one quota key may hold, task key prefix, index prefix, the outcome kept instead of a
// result past that budget (with @HELD@ for what the key holds).
// The first terminal status wins; a finished task leaves its owner's running set. A result is
// counted against its quota key by summing the results its live tasks hold, so Redis's expiry of a
// task gives its bytes back without any bookkeeping.
export const TRANSITION = `
local s = redis.pcall('HGET', KEYS[1], 'status')
if type(s) ~= 'string' or ${TERMINAL} then return false end
local outcome = ARGV[5]
if ARGV[8] ~= '' then
  local size, held = tonumber(ARGV[8]), 0
  local q = redis.call('HGET', KEYS[1], 'quotaKey')
  if q then
    for _, id in ipairs(redis.call('ZRANGE', ARGV[11] .. q, 0, -1)) do
      held = held + (tonumber(redis.pcall('HGET', ARGV[10] .. id, 'resultBytes')) or 0)
    end
  end
  if held + size > tonumber(ARGV[9]) then
    outcome = string.gsub(ARGV[12], '@HELD@', string.format('%.1f MiB', held / 1048576))
  else
    redis.call('HSET', KEYS[1], 'resultBytes', size)
  end
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'lastUpdatedAt', ARGV[2])
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'statusMessage', ARGV[4]) else redis.call('HDEL', KEYS[1], 'statusMessage') end
if outcome ~= '' then redis.call('HSET', KEYS[1], 'outcome', outcome) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'inputRequests', ARGV[7]) else redis.call('HDEL', KEYS[1], 'inputRequests') end
s = ARGV[1]
if ${TERMINAL} then
  redis.call('SREM', ARGV[6] .. redis.call('HGET', KEYS[1], 'owner'), redis.call('HGET', KEYS[1], 'taskId'))
end
return redis.call('HGETALL', KEYS[1])
`;
