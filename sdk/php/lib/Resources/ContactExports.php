<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ContactExportsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ContactExport;
use Sendline\Model\ContactExportFilters;

/** CSV exports of contacts: `create(tag: 'vip')`, `wait()` for the end, `download()`. */
class ContactExports extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ContactExportsApi::class);
    }

    /** Starts an export; filters as `contacts->list()`: `status`, `tag`, `email`, `q`, `created_after`, `created_before`. */
    public function create(array $params = [], mixed ...$named): ContactExport
    {
        return $this->call('createRequest', ContactExport::class, [], self::merge($params, $named), ContactExportFilters::class);
    }

    public function get(?string $id, mixed ...$options): ContactExport
    {
        return $this->call('getRequest', ContactExport::class, ['id' => $id], self::merge([], $options));
    }

    /** The CSV of a completed export. */
    public function download(?string $id, mixed ...$options): string
    {
        return $this->call('downloadRequest', 'string', ['id' => $id], self::merge([], $options));
    }

    /**
     * Polls the export until it is `completed` or `failed` and answers it; throws
     * APITimeoutError when it is still running after `$timeout` seconds.
     */
    public function wait(?string $id, float $timeout = 600.0, float $interval = 1.0, mixed ...$options): ContactExport
    {
        return self::waitUntilFinal('export', $id, fn () => $this->get($id, ...$options), ['completed', 'failed'], $timeout, $interval);
    }
}
