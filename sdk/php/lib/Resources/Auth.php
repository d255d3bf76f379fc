<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\AuthApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\LoginRequest;
use Sendline\Model\Me;
use Sendline\Model\PasswordChange;
use Sendline\Model\RefreshRequest;
use Sendline\Model\RegisterRequest;
use Sendline\Model\Session;

/** Sessions: log in, refresh, log out, and who is calling. */
class Auth extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, AuthApi::class);
    }

    /** A session (`getToken()`); `Sendline::login()` makes a client of it. */
    public function login(array $params = [], mixed ...$named): Session
    {
        return $this->call('loginRequest', Session::class, [], self::merge($params, $named), LoginRequest::class);
    }

    public function register(array $params = [], mixed ...$named): Session
    {
        return $this->call('registerRequest', Session::class, [], self::merge($params, $named), RegisterRequest::class);
    }

    public function refresh(array $params = [], mixed ...$named): Session
    {
        return $this->call('refreshRequest', Session::class, [], self::merge($params, $named), RefreshRequest::class);
    }

    public function logout(mixed ...$options): void
    {
        $this->call('logoutRequest', null, [], self::merge([], $options));
    }

    public function me(mixed ...$options): Me
    {
        return $this->call('meRequest', Me::class, [], self::merge([], $options));
    }

    /** The logged-in user's own password (`current_password`, `new_password`); every other session of the user ends. */
    public function changePassword(array $params = [], mixed ...$named): void
    {
        $this->call('changePasswordRequest', null, [], self::merge($params, $named), PasswordChange::class);
    }
}
