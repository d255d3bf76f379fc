/** One page of a list, as every list operation answers it. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * Every item of a list, page after page (following `next_cursor`), fetched lazily as the loop
 * asks: `for await (const contact of sendline.contacts.list({ tag: 'vip' }))`.
 */
export class PageIterator<T, P extends Page<T> = Page<T>> implements AsyncIterable<T> {
  readonly #fetch: (cursor: string | undefined) => Promise<P>;

  constructor(fetch: (cursor: string | undefined) => Promise<P>) {
    this.#fetch = fetch;
  }

  /** The first page only, with its `next_cursor` (pass it as `cursor` to get the next). */
  firstPage(): Promise<P> {
    return this.#fetch(undefined);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let cursor: string | undefined;
    do {
      const page = await this.#fetch(cursor);
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}
