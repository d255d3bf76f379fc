<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\CustomFieldsApi;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ContactField;
use Sendline\Model\ContactFieldCreate;
use Sendline\Model\ContactFieldList;
use Sendline\Model\ContactFieldUpdate;

/** Custom fields: typed keys of the contacts' `attributes`. */
class CustomFields extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, CustomFieldsApi::class);
    }

    /**
     * Every custom field of the account (at most 100: one call, no pages).
     *
     * @return ContactField[]
     */
    public function list(mixed ...$options): array
    {
        /** @var ContactFieldList $answer */
        $answer = $this->call('callListRequest', ContactFieldList::class, [], self::merge([], $options));
        return $answer->getData();
    }

    /** `key`, `label`, `type` (`text`, `number`, `date`, `boolean`, `choice`) and, for `choice`, `options`. */
    public function create(array $params = [], mixed ...$named): ContactField
    {
        return $this->call('createRequest', ContactField::class, [], self::merge($params, $named), ContactFieldCreate::class);
    }

    public function get(?string $id, mixed ...$options): ContactField
    {
        return $this->call('getRequest', ContactField::class, ['id' => $id], self::merge([], $options));
    }

    public function update(?string $id, array $params = [], mixed ...$named): ContactField
    {
        return $this->call('updateRequest', ContactField::class, ['id' => $id], self::merge($params, $named), ContactFieldUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }
}
