<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\SuppressionsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Suppression;
use Sendline\Model\SuppressionAddResult;
use Sendline\Model\SuppressionCreateRequest;
use Sendline\Model\SuppressionCsvImportRequest;
use Sendline\Model\SuppressionImportResult;
use Sendline\Model\SuppressionPage;

/** The account's suppression list: addresses never sent to, contacts or not. */
class Suppressions extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, SuppressionsApi::class);
    }

    /**
     * Every suppressed address (filters: `reason`, `email`), page by page.
     *
     * @return Paginator<\Sendline\Model\Suppression>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', SuppressionPage::class, [], self::merge($params, $named));
    }

    /** Suppresses up to 10,000 addresses: `emails`, and optionally `reason`, `detail`. */
    public function create(array $params = [], mixed ...$named): SuppressionAddResult
    {
        return $this->call('createRequest', SuppressionAddResult::class, [], self::merge($params, $named), SuppressionCreateRequest::class);
    }

    /** Suppresses the addresses of CSV text (`csv`), the first cell of each row; optionally `reason`, `detail`. */
    public function importCsv(array $params = [], mixed ...$named): SuppressionImportResult
    {
        return $this->call('importCsvRequest', SuppressionImportResult::class, [], self::merge($params, $named), SuppressionCsvImportRequest::class);
    }

    public function get(?string $id, mixed ...$options): Suppression
    {
        return $this->call('getRequest', Suppression::class, ['id' => $id], self::merge([], $options));
    }

    /** Takes the address off the list, saying why (`reason`); its suppressed contact is subscribed again. */
    public function delete(?string $id, array $params = [], mixed ...$named): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge($params, $named));
    }
}
