import type { Db } from '../db/kysely.ts';
import { addressesIn } from '../email.ts';
import type { AnswerBox } from './sealing.ts';
import { idempotencyStore as store, type Reservation } from './store.ts';

const unreadable = (keyId: string): never => {
  throw new Error(`the stored answer of an Idempotency-Key is sealed under key "${keyId}", which SECRET_KEYS no longer holds`);
};

/**
 * `idempotency_keys` as the API router keeps its keys (http/idempotency.ts): answers sealed under
 * the key ring, with the addresses they show stored hashed, so that erasing the person finds them.
 */
export class SealedIdempotencyKeys {
  private readonly db: Db;
  private readonly box: AnswerBox;

  constructor(db: Db, box: AnswerBox) {
    this.db = db;
    this.box = box;
  }

  reserve(r: Reservation): Promise<boolean> {
    return store.reserve(this.db, r);
  }

  /** What the key holds; a stored answer is opened only when asked for. */
  async existing(r: Reservation) {
    const found = await store.existing(this.db, r);
    if (found.state !== 'answered') return found;
    const { answer, ...request } = found;
    return { ...request, open: () => this.box.open(answer, r) ?? unreadable(answer.keyId) };
  }

  answer(r: Reservation, requestHash: Buffer, status: number, plain: Buffer): Promise<void> {
    return store.answer(this.db, r, requestHash, status, this.box.seal(plain, r), addressesIn(plain.toString('utf8')));
  }

  release(r: Reservation): Promise<void> {
    return store.release(this.db, r);
  }
}
