<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\EmailsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Email;
use Sendline\Model\EmailBatchRequest;
use Sendline\Model\EmailBatchResult;
use Sendline\Model\EmailPage;
use Sendline\Model\EmailSendRequest;
use Sendline\Model\EmailSendResult;

/** Transactional email: one message (or a batch) at a time, apart from campaigns. */
class Emails extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, EmailsApi::class);
    }

    /**
     * `from`, `to`, `subject`, `html` and/or `text`, and optionally `cc`, `bcc`, `reply_to`, `headers`, `attachments`, `tags`, `metadata`, `track_opens`, `track_clicks`, `scheduled_at`.
     * Each address is a string (`'ada@example.com'`) or `['email' => …, 'name' => …]`, mixed as you like.
     */
    public function send(array $params = [], mixed ...$named): EmailSendResult
    {
        return $this->call('sendRequest', EmailSendResult::class, [], self::merge($params, $named), EmailSendRequest::class);
    }

    /** `emails`: up to 500 requests as `send` takes them, each accepted or refused on its own. */
    public function batch(array $params = [], mixed ...$named): EmailBatchResult
    {
        return $this->call('batchRequest', EmailBatchResult::class, [], self::merge($params, $named), EmailBatchRequest::class);
    }

    public function get(?string $id, mixed ...$options): Email
    {
        return $this->call('getRequest', Email::class, ['id' => $id], self::merge([], $options));
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page). Filters: `status`, `to`, `tag`, `created_after`, `created_before`.
     *
     * @return Paginator<\Sendline\Model\Email>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', EmailPage::class, [], self::merge($params, $named));
    }

    public function cancel(?string $id, mixed ...$options): Email
    {
        return $this->call('cancelRequest', Email::class, ['id' => $id], self::merge([], $options));
    }
}
