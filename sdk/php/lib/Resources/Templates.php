<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\TemplatesApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\CampaignTestResult;
use Sendline\Model\Template;
use Sendline\Model\TemplateCreate;
use Sendline\Model\TemplatePage;
use Sendline\Model\TemplateRenderRequest;
use Sendline\Model\TemplateRendered;
use Sendline\Model\TemplateTestRequest;
use Sendline\Model\TemplateUpdate;
use Sendline\Model\TemplateVersion;
use Sendline\Model\TemplateVersionPage;

/** Templates: an editable draft, numbered versions that `publish` freezes, render and test send. */
class Templates extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, TemplatesApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\Template>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', TemplatePage::class, [], self::merge($params, $named));
    }

    public function create(array $params = [], mixed ...$named): Template
    {
        return $this->call('createRequest', Template::class, [], self::merge($params, $named), TemplateCreate::class);
    }

    public function get(?string $id, mixed ...$options): Template
    {
        return $this->call('getRequest', Template::class, ['id' => $id], self::merge([], $options));
    }

    /** Changes the draft's fields given (PATCH); published versions stay as they are. */
    public function update(?string $id, array $params = [], mixed ...$named): Template
    {
        return $this->call('updateRequest', Template::class, ['id' => $id], self::merge($params, $named), TemplateUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    /** Freezes the draft into the next numbered version. */
    public function publish(?string $id, mixed ...$options): TemplateVersion
    {
        return $this->call('publishRequest', TemplateVersion::class, ['id' => $id], self::merge([], $options));
    }

    /**
     * Published versions, newest first (a lazy iterator; `firstPage()` for one page).
     *
     * @return Paginator<\Sendline\Model\TemplateVersion>
     */
    public function versions(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('versionsRequest', TemplateVersionPage::class, ['id' => $id], self::merge($params, $named));
    }

    public function version(?string $id, ?int $version, mixed ...$options): TemplateVersion
    {
        return $this->call('versionRequest', TemplateVersion::class, ['id' => $id, 'version' => $version], self::merge([], $options));
    }

    /** `subject`, `html` and `text` of the draft (or `version`) for `data` and/or `contact_id`. */
    public function render(?string $id, array $params = [], mixed ...$named): TemplateRendered
    {
        return $this->call('renderRequest', TemplateRendered::class, ['id' => $id], self::merge($params, $named), TemplateRenderRequest::class);
    }

    /** Sends a test of the draft (or `version`) to `emails`, from `from_email`. */
    public function test(?string $id, array $params = [], mixed ...$named): CampaignTestResult
    {
        return $this->call('testRequest', CampaignTestResult::class, ['id' => $id], self::merge($params, $named), TemplateTestRequest::class);
    }
}
