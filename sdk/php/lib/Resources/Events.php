<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\EventsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\EventPage;
use Sendline\Model\EventsTypes200Response;

/** The account's event log. */
class Events extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, EventsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Event>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', EventPage::class, [], self::merge($params, $named));
    }

    public function types(mixed ...$options): EventsTypes200Response
    {
        return $this->call('typesRequest', EventsTypes200Response::class, [], self::merge([], $options));
    }
}
