<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\WebhooksApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Webhook;
use Sendline\Model\WebhookCreate;
use Sendline\Model\WebhookDelivery;
use Sendline\Model\WebhookDeliveryPage;
use Sendline\Model\WebhookPage;
use Sendline\Model\WebhookRecoverRequest;
use Sendline\Model\WebhookRecoverResult;
use Sendline\Model\WebhookReplace;
use Sendline\Model\WebhookTestResult;
use Sendline\Model\WebhookWithSecret;

/** Webhook endpoints and their deliveries. */
class Webhooks extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, WebhooksApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Webhook>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', WebhookPage::class, [], self::merge($params, $named));
    }

    /** The answer holds the signing secret (`whsec_…`) for `new Sendline\Webhook($secret)`. */
    public function create(array $params = [], mixed ...$named): WebhookWithSecret
    {
        return $this->call('createRequest', WebhookWithSecret::class, [], self::merge($params, $named), WebhookCreate::class);
    }

    public function get(?string $id, mixed ...$options): Webhook
    {
        return $this->call('getRequest', Webhook::class, ['id' => $id], self::merge([], $options));
    }

    public function update(?string $id, array $params = [], mixed ...$named): Webhook
    {
        return $this->call('updateRequest', Webhook::class, ['id' => $id], self::merge($params, $named), WebhookReplace::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\WebhookDelivery>
     */
    public function deliveries(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('deliveriesRequest', WebhookDeliveryPage::class, ['id' => $id], self::merge($params, $named));
    }

    public function recover(?string $id, array $params = [], mixed ...$named): WebhookRecoverResult
    {
        return $this->call('recoverRequest', WebhookRecoverResult::class, ['id' => $id], self::merge($params, $named), WebhookRecoverRequest::class);
    }

    public function retryDelivery(?string $id, string $deliveryId, mixed ...$options): WebhookDelivery
    {
        return $this->call('retryDeliveryRequest', WebhookDelivery::class, ['id' => $id, 'delivery_id' => $deliveryId], self::merge([], $options));
    }

    public function rotateSecret(?string $id, mixed ...$options): WebhookWithSecret
    {
        return $this->call('rotateSecretRequest', WebhookWithSecret::class, ['id' => $id], self::merge([], $options));
    }

    public function test(?string $id, mixed ...$options): WebhookTestResult
    {
        return $this->call('testRequest', WebhookTestResult::class, ['id' => $id], self::merge([], $options));
    }
}
