<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ApiKeysApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ApiKey;
use Sendline\Model\ApiKeyCreate;
use Sendline\Model\ApiKeyPage;
use Sendline\Model\ApiKeyUpdate;
use Sendline\Model\ApiKeyWithSecret;

/** API keys of the account. */
class ApiKeys extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ApiKeysApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\ApiKey>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', ApiKeyPage::class, [], self::merge($params, $named));
    }

    /** The answer holds the key itself, shown this once. */
    public function create(array $params = [], mixed ...$named): ApiKeyWithSecret
    {
        return $this->call('createRequest', ApiKeyWithSecret::class, [], self::merge($params, $named), ApiKeyCreate::class);
    }

    public function get(?string $id, mixed ...$options): ApiKey
    {
        return $this->call('getRequest', ApiKey::class, ['id' => $id], self::merge([], $options));
    }

    public function update(?string $id, array $params = [], mixed ...$named): ApiKey
    {
        return $this->call('updateRequest', ApiKey::class, ['id' => $id], self::merge($params, $named), ApiKeyUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }
}
