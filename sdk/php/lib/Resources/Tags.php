<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\TagsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\TagBulkRequest;
use Sendline\Model\TagBulkResult;
use Sendline\Model\TagCount;
use Sendline\Model\TagCountPage;
use Sendline\Model\TagRename;

/** Tags across the account's contacts. */
class Tags extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, TagsApi::class);
    }

    /**
     * Every tag with how many contacts carry it, by name (a lazy iterator).
     *
     * @return Paginator<\Sendline\Model\TagCount>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', TagCountPage::class, [], self::merge($params, $named));
    }

    /** Renames `$name` to `$to` on every contact; into an existing tag, the two merge. */
    public function rename(string $name, string $to, mixed ...$options): TagCount
    {
        return $this->call('renameRequest', TagCount::class, ['name' => $name], self::merge(['name' => $to], $options), TagRename::class);
    }

    public function delete(string $name, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['name' => $name], self::merge([], $options));
    }

    /** `add` and/or `remove`, and exactly one of `contact_ids`, `emails` (up to 10,000), `segment_id` or `list_id`. */
    public function bulk(array $params = [], mixed ...$named): TagBulkResult
    {
        return $this->call('bulkRequest', TagBulkResult::class, [], self::merge($params, $named), TagBulkRequest::class);
    }
}
