<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use Sendline\Api\AutomationsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Model\Automation;
use Sendline\Model\AutomationCreate;
use Sendline\Model\AutomationPage;
use Sendline\Model\AutomationUpdate;
use Sendline\Model\AutomationWebhookSecret;
use Sendline\Model\Enrollment;
use Sendline\Model\EnrollmentCreate;
use Sendline\Model\EnrollmentPage;
use Sendline\Model\EnrollmentResult;

/** Journeys: create one as a draft, activate it, enrol contacts, follow their paths. */
class Automations extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, AutomationsApi::class);
    }

    /**
     * Every item, page by page (a lazy iterator; `firstPage()` for one page). Filter: `status`.
     *
     * @return Paginator<\Sendline\Model\Automation>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', AutomationPage::class, [], self::merge($params, $named));
    }

    /** Saves a draft (`name`, `trigger`, `steps`, `settings`); its steps are checked as a graph. */
    public function create(array $params = [], mixed ...$named): Automation
    {
        return $this->call('createRequest', Automation::class, [], self::merge($params, $named), AutomationCreate::class);
    }

    public function get(?string $id, mixed ...$options): Automation
    {
        return $this->call('getRequest', Automation::class, ['id' => $id], self::merge([], $options));
    }

    /** New steps on an active automation make a new version; contacts in flight finish on theirs. */
    public function update(?string $id, array $params = [], mixed ...$named): Automation
    {
        return $this->call('updateRequest', Automation::class, ['id' => $id], self::merge($params, $named), AutomationUpdate::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    public function activate(?string $id, mixed ...$options): Automation
    {
        return $this->call('activateRequest', Automation::class, ['id' => $id], self::merge([], $options));
    }

    public function pause(?string $id, mixed ...$options): Automation
    {
        return $this->call('pauseRequest', Automation::class, ['id' => $id], self::merge([], $options));
    }

    public function archive(?string $id, mixed ...$options): Automation
    {
        return $this->call('archiveRequest', Automation::class, ['id' => $id], self::merge([], $options));
    }

    /** The secret that signs the automation's webhook steps' posts. */
    public function webhookSecret(?string $id, mixed ...$options): AutomationWebhookSecret
    {
        return $this->call('webhookSecretRequest', AutomationWebhookSecret::class, ['id' => $id], self::merge([], $options));
    }

    /** Enrols contacts by `contact_ids` or `emails` (up to 10,000); the re-entry setting applies. */
    public function enroll(?string $id, array $params = [], mixed ...$named): EnrollmentResult
    {
        return $this->call('enrollRequest', EnrollmentResult::class, ['id' => $id], self::merge($params, $named), EnrollmentCreate::class);
    }

    /**
     * The automation's enrolments, newest first. Filters: `status`, `contact_id`.
     *
     * @return Paginator<\Sendline\Model\Enrollment>
     */
    public function listEnrollments(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('listEnrollmentsRequest', EnrollmentPage::class, ['id' => $id], self::merge($params, $named));
    }

    public function cancelEnrollment(?string $id, string $enrollmentId, mixed ...$options): Enrollment
    {
        return $this->call('cancelEnrollmentRequest', Enrollment::class, ['id' => $id, 'enrollment_id' => $enrollmentId], self::merge([], $options));
    }
}
