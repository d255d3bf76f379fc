<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\PaymentsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Payment;
use Sendline\Model\PaymentCreate;
use Sendline\Model\PaymentPage;

/** Payments attributed to campaigns. */
class Payments extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, PaymentsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Payment>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', PaymentPage::class, [], self::merge($params, $named));
    }

    public function create(array $params = [], mixed ...$named): Payment
    {
        return $this->call('createRequest', Payment::class, [], self::merge($params, $named), PaymentCreate::class);
    }
}
