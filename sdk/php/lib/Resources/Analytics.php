<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\AnalyticsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\AnalyticsOverview;
use Sendline\Model\AutomationAnalytics;
use Sendline\Model\CampaignAnalytics;

/** Figures of the account, of each campaign and of each automation. */
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

    /** Enrolments by status, and per step how many entered, wait there and went on. */
    public function automation(?string $id, mixed ...$options): AutomationAnalytics
    {
        return $this->call('automationRequest', AutomationAnalytics::class, ['id' => $id], self::merge([], $options));
    }

    /** `since`, `until`: DateTimeInterface or RFC 3339 strings. */
    public function overview(array $params = [], mixed ...$named): AnalyticsOverview
    {
        return $this->call('overviewRequest', AnalyticsOverview::class, [], self::merge($params, $named));
    }
}
