<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ContactAutomationsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\EnrollmentPage;

/** A contact's enrolments in every automation. */
class ContactAutomations extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ContactAutomationsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Enrollment>
     */
    public function list(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', EnrollmentPage::class, ['id' => $id], self::merge($params, $named));
    }
}
