<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\CampaignsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Campaign;
use Sendline\Model\CampaignAudienceCount;
use Sendline\Model\CampaignCreate;
use Sendline\Model\CampaignMessagePage;
use Sendline\Model\CampaignPage;
use Sendline\Model\CampaignReplace;
use Sendline\Model\CampaignScheduleRequest;
use Sendline\Model\CampaignSendRequest;
use Sendline\Model\CampaignTestRequest;
use Sendline\Model\CampaignTestResult;
use Sendline\Model\CampaignWinnerRequest;

/** Campaigns: drafts, scheduling, sending and their messages. */
class Campaigns extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, CampaignsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Campaign>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', CampaignPage::class, [], self::merge($params, $named));
    }

    public function create(array $params = [], mixed ...$named): Campaign
    {
        return $this->call('createRequest', Campaign::class, [], self::merge($params, $named), CampaignCreate::class);
    }

    public function get(?string $id, mixed ...$options): Campaign
    {
        return $this->call('getRequest', Campaign::class, ['id' => $id], self::merge([], $options));
    }

    public function update(?string $id, array $params = [], mixed ...$named): Campaign
    {
        return $this->call('updateRequest', Campaign::class, ['id' => $id], self::merge($params, $named), CampaignReplace::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    public function duplicate(?string $id, mixed ...$options): Campaign
    {
        return $this->call('duplicateRequest', Campaign::class, ['id' => $id], self::merge([], $options));
    }

    public function schedule(?string $id, array $params = [], mixed ...$named): Campaign
    {
        return $this->call('scheduleRequest', Campaign::class, ['id' => $id], self::merge($params, $named), CampaignScheduleRequest::class);
    }

    public function unschedule(?string $id, mixed ...$options): Campaign
    {
        return $this->call('unscheduleRequest', Campaign::class, ['id' => $id], self::merge([], $options));
    }

    public function send(?string $id, array $params = [], mixed ...$named): Campaign
    {
        return $this->call('sendRequest', Campaign::class, ['id' => $id], self::merge($params, $named), CampaignSendRequest::class);
    }

    public function test(?string $id, array $params = [], mixed ...$named): CampaignTestResult
    {
        return $this->call('testRequest', CampaignTestResult::class, ['id' => $id], self::merge($params, $named), CampaignTestRequest::class);
    }

    public function pause(?string $id, mixed ...$options): Campaign
    {
        return $this->call('pauseRequest', Campaign::class, ['id' => $id], self::merge([], $options));
    }

    public function resume(?string $id, mixed ...$options): Campaign
    {
        return $this->call('resumeRequest', Campaign::class, ['id' => $id], self::merge([], $options));
    }

    public function cancel(?string $id, mixed ...$options): Campaign
    {
        return $this->call('cancelRequest', Campaign::class, ['id' => $id], self::merge([], $options));
    }

    /** Chooses the A/B test's winning variant (`variant: 'B'`): the rest of the audience gets it. */
    public function winner(?string $id, array $params = [], mixed ...$named): Campaign
    {
        return $this->call('winnerRequest', Campaign::class, ['id' => $id], self::merge($params, $named), CampaignWinnerRequest::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\CampaignMessage>
     */
    /** How many contacts the campaign would send to if it started now (`recipients`). */
    public function audience(?string $id, mixed ...$options): CampaignAudienceCount
    {
        return $this->call('audienceRequest', CampaignAudienceCount::class, ['id' => $id], self::merge([], $options));
    }

    public function messages(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('messagesRequest', CampaignMessagePage::class, ['id' => $id], self::merge($params, $named));
    }

    /**
     * Polls the campaign until it is `completed`, `cancelled` or `failed` and answers it; throws
     * APITimeoutError when it has not finished after `$timeout` seconds (a draft, scheduled or
     * paused campaign stays as it is until someone acts).
     */
    public function wait(?string $id, float $timeout = 600.0, float $interval = 1.0, mixed ...$options): Campaign
    {
        return self::waitUntilFinal('campaign', $id, fn () => $this->get($id, ...$options), ['completed', 'cancelled', 'failed'], $timeout, $interval);
    }
}
