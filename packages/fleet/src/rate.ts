/**
 * A fleet run's `--rate`, one count for all its machines: the starts of the run's thinks in a
 * sorted set in Redis (`pw:run:RUN:rate`, scored by Redis's own clock, so the machines' clocks
 * need not agree), checked and added by one Lua script (atomic: two machines never both take
 * the last place). Keyed by the run's id: two runs sharing a Redis have a limit each.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { RateLimiter } from "@patchwork/agent";
import { rateKey } from "./protocol.js";

// KEYS[1]: the set; ARGV: window (ms), limit, a member name. 0: counted; else ms until a place frees.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window * 2)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly prefix = randomBytes(6).toString("hex");
  private count = 0;

  constructor(
    private readonly redis: Redis,
    private readonly run: string,
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  async take(): Promise<number> {
    const member = `${this.prefix}:${++this.count}`;
    const wait = await this.redis.eval(TAKE, 1, rateKey(this.run), this.windowMs, this.limit, member);
    return Number(wait);
  }
}
