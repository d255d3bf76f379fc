import { defineEntity, p } from '@mikro-orm/core';

/** Sends claimed per relay and second (written only by `relay-limits.ts`). */
export const RelaySendSlot = defineEntity({
  name: 'RelaySendSlot',
  tableName: 'relay_send_slots',
  properties: {
    relay: p.text().primary(),
    second: p.bigint().primary(),
    taken: p.integer(),
  },
});
