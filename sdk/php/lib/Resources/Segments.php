<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\SegmentsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\ContactPage;
use Sendline\Model\Segment;
use Sendline\Model\SegmentCreate;
use Sendline\Model\SegmentPage;
use Sendline\Model\SegmentPreview;
use Sendline\Model\SegmentPreviewRequest;
use Sendline\Model\SegmentUpdate;

/** Segments: saved rules over contacts, worked out when read. */
class Segments extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, SegmentsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Segment>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', SegmentPage::class, [], self::merge($params, $named));
    }

    /** `name`, `rules` (`['all' => [...]]`, `['any' => [...]]` or one condition) and optionally `description`. */
    public function create(array $params = [], mixed ...$named): Segment
    {
        return $this->call('createRequest', Segment::class, [], self::merge($params, $named), SegmentCreate::class);
    }

    public function get(?string $id, mixed ...$options): Segment
    {
        return $this->call('getRequest', Segment::class, ['id' => $id], self::merge([], $options));
    }

    public function update(?string $id, array $params = [], mixed ...$named): Segment
    {
        return $this->call('updateRequest', Segment::class, ['id' => $id], self::merge($params, $named), SegmentUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    /** How many contacts `rules` match now, and the first `sample_size` of them (nothing is saved). */
    public function preview(array $params = [], mixed ...$named): SegmentPreview
    {
        return $this->call('previewRequest', SegmentPreview::class, [], self::merge($params, $named), SegmentPreviewRequest::class);
    }

    /**
     * The contacts the segment matches now, oldest first (a lazy iterator).
     *
     * @return Paginator<\Sendline\Model\Contact>
     */
    public function contacts(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('contactsRequest', ContactPage::class, ['id' => $id], self::merge($params, $named));
    }
}
