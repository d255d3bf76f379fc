<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\TopicsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Topic;
use Sendline\Model\TopicCreate;
use Sendline\Model\TopicPage;
use Sendline\Model\TopicUpdate;

/** Unsubscribe topics a campaign can belong to. */
class Topics extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, TopicsApi::class);
    }

    /** @return Paginator<\Sendline\Model\Topic> */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', TopicPage::class, [], self::merge($params, $named));
    }

    public function create(array $params = [], mixed ...$named): Topic
    {
        return $this->call('createRequest', Topic::class, [], self::merge($params, $named), TopicCreate::class);
    }

    public function get(?string $id, mixed ...$options): Topic
    {
        return $this->call('getRequest', Topic::class, ['id' => $id], self::merge([], $options));
    }

    public function update(?string $id, array $params = [], mixed ...$named): Topic
    {
        return $this->call('updateRequest', Topic::class, ['id' => $id], self::merge($params, $named), TopicUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }
}
