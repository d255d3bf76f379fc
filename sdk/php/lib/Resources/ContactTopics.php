<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ContactTopicsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ContactTopicOptouts;
use Sendline\Model\ContactTopicOptoutsUpdate;

/** The topics a contact left. */
class ContactTopics extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ContactTopicsApi::class);
    }

    public function get(?string $id, mixed ...$options): ContactTopicOptouts
    {
        return $this->call('getRequest', ContactTopicOptouts::class, ['id' => $id], self::merge([], $options));
    }

    /** Replaces the topics the contact left (`topic_ids`). */
    public function replace(?string $id, array $params = [], mixed ...$named): ContactTopicOptouts
    {
        return $this->call('replaceRequest', ContactTopicOptouts::class, ['id' => $id], self::merge($params, $named), ContactTopicOptoutsUpdate::class);
    }
}
