<?php
// Hand-written; kept across regeneration.

namespace Sendline;

use GuzzleHttp\ClientInterface;
use Sendline\Api\AuthApi;
use Sendline\Client\Transport;
use Sendline\Errors\ConfigurationError;
use Sendline\Model\LoginRequest;
use Sendline\Model\Session;

/**
 * The Sendline API client.
 *
 *     $client = new Sendline\Sendline(api_key: 'sl_…', base_url: 'https://mail.example.com');
 *     $client = new Sendline\Sendline(['api_key' => 'sl_…', 'base_url' => 'https://mail.example.com']);
 *
 * `api_key` defaults to SENDLINE_API_KEY, `base_url` to SENDLINE_BASE_URL, else
 * http://localhost:3000; `timeout` (seconds, the whole request) to 60; `max_retries` to 2.
 */
final class Sendline
{
    public const VERSION = '0.1.0';
    public const DEFAULT_BASE_URL = 'http://localhost:3000';

    public readonly Resources\Contacts $contacts;
    public readonly Resources\ContactImports $contactImports;
    public readonly Resources\Campaigns $campaigns;
    public readonly Resources\ApiKeys $apiKeys;
    public readonly Resources\Webhooks $webhooks;
    public readonly Resources\Events $events;
    public readonly Resources\Tracking $tracking;
    public readonly Resources\Analytics $analytics;
    public readonly Resources\Conversions $conversions;
    public readonly Resources\Payments $payments;
    public readonly Resources\Users $users;
    public readonly Resources\Auth $auth;
    public readonly Resources\CustomFields $customFields;
    public readonly Resources\Segments $segments;
    public readonly Resources\Tags $tags;
    public readonly Resources\Templates $templates;
    public readonly Resources\Lists $lists;
    public readonly Resources\ContactLists $contactLists;
    public readonly Resources\PublicLists $publicLists;
    public readonly Resources\Emails $emails;
    public readonly Resources\Suppressions $suppressions;
    public readonly Resources\Topics $topics;
    public readonly Resources\ContactTopics $contactTopics;
    public readonly Resources\ContactExports $contactExports;
    public readonly Resources\Accounts $accounts;
    public readonly Resources\Domains $domains;
    public readonly Resources\Automations $automations;
    public readonly Resources\ContactAutomations $contactAutomations;
    public readonly Resources\ContactEvents $contactEvents;
    private readonly Transport $transport;

    /**
     * @param string|array{api_key?: string, base_url?: string, timeout?: float|int, max_retries?: int, http_client?: ClientInterface}|null $api_key
     *        the API key (or a session's JWT), or all the options as one array
     * @param ClientInterface|null $http_client a Guzzle client of your own (proxies, TLS settings)
     * @throws ConfigurationError without an API key, or with a base URL that is not http(s)
     */
    public function __construct(
        string|array|null $api_key = null,
        ?string $base_url = null,
        float|int $timeout = 60,
        int $max_retries = 2,
        ?ClientInterface $http_client = null,
    ) {
        if (is_array($api_key)) {
            $unknown = array_diff(array_keys($api_key), ['api_key', 'base_url', 'timeout', 'max_retries', 'http_client']);
            if ($unknown !== []) {
                throw new ConfigurationError("unknown option '" . implode("', '", $unknown) . "'");
            }
            ['api_key' => $api_key, 'base_url' => $base_url, 'timeout' => $timeout, 'max_retries' => $max_retries, 'http_client' => $http_client]
                = $api_key + ['api_key' => null, 'base_url' => $base_url, 'timeout' => $timeout, 'max_retries' => $max_retries, 'http_client' => $http_client];
        }
        $api_key ??= self::env('SENDLINE_API_KEY');
        if ($api_key === null || trim($api_key) === '') {
            throw new ConfigurationError('no API key: pass api_key (an API key or a session token) or set SENDLINE_API_KEY');
        }
        $this->setUp(new Transport($base_url ?? self::env('SENDLINE_BASE_URL') ?? self::DEFAULT_BASE_URL, $api_key, (float) $timeout, $max_retries, $http_client));
    }

    /**
     * Logs in with a user's email and password and answers a client using the session's
     * token (valid 15 minutes).
     *
     * @param array{timeout?: float|int, max_retries?: int, http_client?: ClientInterface} $options
     */
    public static function login(string $base_url, string $email, string $password, array $options = []): self
    {
        $transport = new Transport($base_url, null, (float) ($options['timeout'] ?? 60), $options['max_retries'] ?? 2, $options['http_client'] ?? null);
        $request = (new AuthApi(null, $transport->configuration()))->loginRequest(new LoginRequest(['email' => $email, 'password' => $password]));
        $session = $transport->decode($transport->send($request), Session::class);
        return new self(['api_key' => $session->getToken(), 'base_url' => $transport->baseUrl] + $options);
    }

    /** The normalised base URL, `<origin>/api/v1`. */
    public function baseUrl(): string
    {
        return $this->transport->baseUrl;
    }

    private function setUp(Transport $transport): void
    {
        $this->transport = $transport;
        $this->contacts = new Resources\Contacts($transport);
        $this->contactImports = new Resources\ContactImports($transport);
        $this->campaigns = new Resources\Campaigns($transport);
        $this->apiKeys = new Resources\ApiKeys($transport);
        $this->webhooks = new Resources\Webhooks($transport);
        $this->events = new Resources\Events($transport);
        $this->tracking = new Resources\Tracking($transport);
        $this->analytics = new Resources\Analytics($transport);
        $this->conversions = new Resources\Conversions($transport);
        $this->payments = new Resources\Payments($transport);
        $this->users = new Resources\Users($transport);
        $this->auth = new Resources\Auth($transport);
        $this->customFields = new Resources\CustomFields($transport);
        $this->segments = new Resources\Segments($transport);
        $this->tags = new Resources\Tags($transport);
        $this->templates = new Resources\Templates($transport);
        $this->lists = new Resources\Lists($transport);
        $this->contactLists = new Resources\ContactLists($transport);
        $this->publicLists = new Resources\PublicLists($transport);
        $this->emails = new Resources\Emails($transport);
        $this->suppressions = new Resources\Suppressions($transport);
        $this->topics = new Resources\Topics($transport);
        $this->contactTopics = new Resources\ContactTopics($transport);
        $this->contactExports = new Resources\ContactExports($transport);
        $this->accounts = new Resources\Accounts($transport);
        $this->domains = new Resources\Domains($transport);
        $this->automations = new Resources\Automations($transport);
        $this->contactAutomations = new Resources\ContactAutomations($transport);
        $this->contactEvents = new Resources\ContactEvents($transport);
    }

    private static function env(string $name): ?string
    {
        $value = getenv($name);
        return $value === false || $value === '' ? null : $value;
    }

    /** @return array<string, mixed> */
    public function __debugInfo(): array
    {
        return ['transport' => $this->transport];
    }

    public function __serialize(): array
    {
        throw new \LogicException('a Sendline client cannot be serialized: it holds a credential');
    }
}
