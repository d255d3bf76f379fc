<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\AnalyticsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\AnalyticsOverview;
use Sendline\Model\CampaignAnalytics;

/** Figures of the account and of each campaign. */
class Analytics extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, AnalyticsApi::class);
    }

    public function campaign(?string $id, mixed ...$options): CampaignAnalytics
    {
        return $this->call('campaignRequest', CampaignAnalytics::class, ['id' => $id], self::merge([], $options));
    }

    /** `since`, `until`: DateTimeInterface or RFC 3339 strings. */
    public function overview(array $params = [], mixed ...$named): AnalyticsOverview
    {
        return $this->call('overviewRequest', AnalyticsOverview::class, [], self::merge($params, $named));
    }
}
