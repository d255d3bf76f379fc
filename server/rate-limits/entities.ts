import { defineEntity, p } from '@mikro-orm/core';

/** Requests counted per rate-limit bucket and window (written only by `rate-limit.ts`). */
export const RateLimitCounter = defineEntity({
  name: 'RateLimitCounter',
  tableName: 'rate_limit_counters',
  properties: {
    bucket: p.text().primary(),
    windowStart: p.datetime().primary(),
    count: p.integer(),
  },
});
