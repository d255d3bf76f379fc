<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\UsersApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\User;
use Sendline\Model\UserCreate;
use Sendline\Model\UserPage;
use Sendline\Model\UserUpdate;

/** Users of the account. */
class Users extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, UsersApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\User>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', UserPage::class, [], self::merge($params, $named));
    }

    public function create(array $params = [], mixed ...$named): User
    {
        return $this->call('createRequest', User::class, [], self::merge($params, $named), UserCreate::class);
    }

    public function get(?string $id, mixed ...$options): User
    {
        return $this->call('getRequest', User::class, ['id' => $id], self::merge([], $options));
    }

    public function update(?string $id, array $params = [], mixed ...$named): User
    {
        return $this->call('updateRequest', User::class, ['id' => $id], self::merge($params, $named), UserUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }
}
