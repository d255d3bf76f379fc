<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\ListsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ListForm;
use Sendline\Model\ListMemberPage;
use Sendline\Model\ListMembersAdd;
use Sendline\Model\ListMembersAddResult;
use Sendline\Model\ListMembersRemove;
use Sendline\Model\ListMembersRemoveResult;
use Sendline\Model\MailingList;
use Sendline\Model\MailingListCreate;
use Sendline\Model\MailingListPage;
use Sendline\Model\MailingListUpdate;

/** Lists of contacts and their members (double opt-in included). */
class Lists extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ListsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\MailingList>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', MailingListPage::class, [], self::merge($params, $named));
    }

    /** `name`, and optionally `description`, `double_opt_in` (which needs `from_email`), `from_email`, `from_name`. */
    public function create(array $params = [], mixed ...$named): MailingList
    {
        return $this->call('createRequest', MailingList::class, [], self::merge($params, $named), MailingListCreate::class);
    }

    public function get(?string $id, mixed ...$options): MailingList
    {
        return $this->call('getRequest', MailingList::class, ['id' => $id], self::merge([], $options));
    }

    /** Changes the fields given (PATCH). */
    public function update(?string $id, array $params = [], mixed ...$named): MailingList
    {
        return $this->call('updateRequest', MailingList::class, ['id' => $id], self::merge($params, $named), MailingListUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    /**
     * The list's members, optionally of one `status`.
     *
     * @return Paginator<\Sendline\Model\ListMember>
     */
    public function members(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('membersRequest', ListMemberPage::class, ['id' => $id], self::merge($params, $named));
    }

    /** `contact_ids` and `emails`, at most 10,000 in all; optionally `status`. */
    public function addMembers(?string $id, array $params = [], mixed ...$named): ListMembersAddResult
    {
        return $this->call('addMembersRequest', ListMembersAddResult::class, ['id' => $id], self::merge($params, $named), ListMembersAdd::class);
    }

    /** `contact_ids` and `emails`, at most 10,000 in all. */
    public function removeMembers(?string $id, array $params = [], mixed ...$named): ListMembersRemoveResult
    {
        return $this->call('removeMembersRequest', ListMembersRemoveResult::class, ['id' => $id], self::merge($params, $named), ListMembersRemove::class);
    }

    public function form(?string $id, mixed ...$options): ListForm
    {
        return $this->call('formRequest', ListForm::class, ['id' => $id], self::merge([], $options));
    }
}
