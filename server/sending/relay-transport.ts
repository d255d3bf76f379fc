import type { Config } from '../config.ts';
import { ConnectionSlots, RelayRate, type SlotClaim } from './relay-limits.ts';
import { routeFor, type RelayPlan, type Stream } from './relays.ts';
import { MailTransport, type SendOutcome } from './transport.ts';

interface Relay {
  transport: MailTransport;
  rate: RelayRate | null;
}

/**
 * A thread's relays: each message goes to the first relay of its route, and on to the next only
 * when that one certainly did not take it (no connection, greeting, EHLO or AUTH; 421 before its
 * data), so failing over neither loses nor duplicates a message. A recipient's refusal or a
 * deferral is the answer, whichever relay gave it.
 */
export class RelayTransport {
  private readonly plan: RelayPlan;
  private readonly relays = new Map<string, Relay>();

  /** `cells`: the process's connection counts ({@link ConnectionSlots.shared}); `claims`: each rate-limited relay's slots. */
  constructor(plan: RelayPlan, sending: Config['sending'], cells: Int32Array, claims: (relay: string, rate: number) => SlotClaim) {
    this.plan = plan;
    for (const [index, relay] of plan.relays.entries()) {
      this.relays.set(relay.name, {
        transport: new MailTransport(relay.url, sending, new ConnectionSlots(cells, index, relay.maxConnections)),
        rate: relay.ratePerSecond ? new RelayRate(claims(relay.name, relay.ratePerSecond), relay.ratePerSecond) : null,
      });
    }
  }

  /** Sends through the route of `stream` and the From address `fromEmail`. */
  async sendMime(stream: Stream, fromEmail: string, envelope: { from: string; to: string }, raw: string): Promise<SendOutcome> {
    let last: SendOutcome | null = null;
    for (const name of routeFor(this.plan, stream, fromEmail)) {
      const relay = this.relays.get(name)!;
      try {
        await relay.rate?.take();
      } catch (error) {
        // The database did not answer: the message waits in the queue, as for a relay failing.
        return { kind: 'transport_error', error: `claiming a send of relay ${name} failed: ${(error as Error).message}` };
      }
      const { outcome, unsent } = await relay.transport.attempt(envelope, raw);
      if (!unsent) return { ...outcome, relay: name };
      last = { ...outcome, relay: name };
    }
    return last!;
  }

  close(): void {
    for (const relay of this.relays.values()) relay.transport.close();
  }
}
