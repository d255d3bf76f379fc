<?php
// Hand-written; kept across regeneration.

namespace Sendline\Client;

/**
 * Every item of a list, across pages: `foreach ($client->contacts->list(['tag' => 'vip']) as $c)`.
 * Pages are fetched lazily, one at a time, following `next_cursor`; iterating again starts over.
 *
 * @template T
 * @implements \IteratorAggregate<int, T>
 */
final class Paginator implements \IteratorAggregate
{
    /**
     * @param \Closure(?string): object $fetch fetches the page at a cursor (null: the first)
     */
    public function __construct(private readonly \Closure $fetch)
    {
    }

    /** @return \Generator<int, T> */
    public function getIterator(): \Generator
    {
        foreach ($this->pages() as $page) {
            foreach ($page->getData() ?? [] as $item) {
                yield $item;
            }
        }
    }

    /** The first page only (the generated page model: getData(), getNextCursor(), getHasMore()). */
    public function firstPage(): object
    {
        return ($this->fetch)(null);
    }

    /** @return \Generator<int, object> each page, fetched when the previous one is used up */
    public function pages(): \Generator
    {
        $cursor = null;
        do {
            $page = ($this->fetch)($cursor);
            yield $page;
            $cursor = $page->getNextCursor();
        } while (is_string($cursor) && $cursor !== '');
    }
}
