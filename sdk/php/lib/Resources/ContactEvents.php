<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ContactEventsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ContactEvent;
use Sendline\Model\ContactEventCreate;

/** Custom events about a contact: they trigger journeys and resume those waiting for them. */
class ContactEvents extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ContactEventsApi::class);
    }

    /** Posts the event (`name`, `properties`). */
    public function create(?string $id, array $params = [], mixed ...$named): ContactEvent
    {
        return $this->call('createRequest', ContactEvent::class, ['id' => $id], self::merge($params, $named), ContactEventCreate::class);
    }
}
