<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ContactListsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ContactListMembershipPage;

/** The lists a contact is a member of. */
class ContactLists extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ContactListsApi::class);
    }

    /**
     * Every list of the contact, with the member's status there (a lazy iterator).
     *
     * @return Paginator<\Sendline\Model\ContactListMembership>
     */
    public function list(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', ContactListMembershipPage::class, ['id' => $id], self::merge($params, $named));
    }
}
