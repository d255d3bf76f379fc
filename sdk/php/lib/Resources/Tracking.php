<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\TrackingApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\BounceRecord;
use Sendline\Model\BounceRecordPage;
use Sendline\Model\BounceReport;
use Sendline\Model\ClickRecordPage;
use Sendline\Model\OpenRecordPage;

/** Opens, clicks and bounces. */
class Tracking extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, TrackingApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\OpenRecord>
     */
    public function opens(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('opensRequest', OpenRecordPage::class, [], self::merge($params, $named));
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\ClickRecord>
     */
    public function clicks(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('clicksRequest', ClickRecordPage::class, [], self::merge($params, $named));
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\BounceRecord>
     */
    public function bounces(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('bouncesRequest', BounceRecordPage::class, [], self::merge($params, $named));
    }

    public function recordBounce(array $params = [], mixed ...$named): BounceRecord
    {
        return $this->call('recordBounceRequest', BounceRecord::class, [], self::merge($params, $named), BounceReport::class);
    }
}
