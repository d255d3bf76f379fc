<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\DomainsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Domain;
use Sendline\Model\DomainCreate;
use Sendline\Model\DomainPage;

/** Sending domains: add one, publish its records, verify it; rotate its DKIM key. */
class Domains extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, DomainsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Domain>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', DomainPage::class, [], self::merge($params, $named));
    }

    /** The answer lists the DNS records to publish. */
    public function create(array $params = [], mixed ...$named): Domain
    {
        return $this->call('createRequest', Domain::class, [], self::merge($params, $named), DomainCreate::class);
    }

    public function get(?string $id, mixed ...$options): Domain
    {
        return $this->call('getRequest', Domain::class, ['id' => $id], self::merge([], $options));
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    /** Looks the records up now; each record's status says what was found. */
    public function verify(?string $id, mixed ...$options): Domain
    {
        return $this->call('verifyRequest', Domain::class, ['id' => $id], self::merge([], $options));
    }

    public function rotateDkim(?string $id, mixed ...$options): Domain
    {
        return $this->call('rotateDkimRequest', Domain::class, ['id' => $id], self::merge([], $options));
    }

    public function retireDkim(?string $id, mixed ...$options): Domain
    {
        return $this->call('retireDkimRequest', Domain::class, ['id' => $id], self::merge([], $options));
    }
}
