<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ContactImportsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ContactImport;
use Sendline\Model\ContactImportPage;
use Sendline\Model\ContactImportRequest;

/** Contact imports: JSON rows (`create(contacts: […])`), their progress, `wait()` for the end. */
class ContactImports extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ContactImportsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\ContactImport>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', ContactImportPage::class, [], self::merge($params, $named));
    }

    /** Imports up to 10,000 rows given as JSON (`contacts`, `mode`, `tags`); for more use `$client->contacts->importCsv()`. */
    public function create(array $params = [], mixed ...$named): ContactImport
    {
        return $this->call('createRequest', ContactImport::class, [], self::merge($params, $named), ContactImportRequest::class);
    }

    public function get(?string $id, mixed ...$options): ContactImport
    {
        return $this->call('getRequest', ContactImport::class, ['id' => $id], self::merge([], $options));
    }

    /** The rows that failed, as CSV text. */
    public function errors(?string $id, mixed ...$options): string
    {
        return $this->call('errorsRequest', 'string', ['id' => $id], self::merge([], $options));
    }

    /**
     * Polls the import until it is `completed` or `failed` and answers it; throws
     * APITimeoutError when it is still running after `$timeout` seconds.
     */
    public function wait(?string $id, float $timeout = 600.0, float $interval = 1.0, mixed ...$options): ContactImport
    {
        return self::waitUntilFinal('import', $id, fn () => $this->get($id, ...$options), ['completed', 'failed'], $timeout, $interval);
    }
}
