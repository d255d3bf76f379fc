<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\PublicListsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\PublicSubscribeRequest;
use Sendline\Model\PublicSubscribeResult;

/** Subscription from public forms; no credential needed. */
class PublicLists extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, PublicListsApi::class);
    }

    /** `email`, and optionally `first_name`, `last_name`. */
    public function subscribe(?string $publicId, array $params = [], mixed ...$named): PublicSubscribeResult
    {
        return $this->call('subscribeRequest', PublicSubscribeResult::class, ['public_id' => $publicId], self::merge($params, $named), PublicSubscribeRequest::class);
    }
}
