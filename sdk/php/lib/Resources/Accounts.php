<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\AccountsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Account;
use Sendline\Model\AccountUpdate;

/** The caller's account: read it; owners and admins rename it. */
class Accounts extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, AccountsApi::class);
    }

    public function get(mixed ...$options): Account
    {
        return $this->call('getRequest', Account::class, [], self::merge([], $options));
    }

    public function update(array $params = [], mixed ...$named): Account
    {
        return $this->call('updateRequest', Account::class, [], self::merge($params, $named), AccountUpdate::class);
    }
}
