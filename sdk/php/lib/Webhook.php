<?php
// Hand-written; kept across regeneration.

namespace Sendline;

use Sendline\Errors\WebhookVerificationError;
use Sendline\Model\ModelInterface;

/**
 * Verifies Sendline's webhook deliveries (Standard Webhooks signatures):
 *
 *     $event = (new Sendline\Webhook($secret))->verify($rawBody, $request->getHeaders());
 *
 * `$secret` is the endpoint's `whsec_…` secret (the prefix is optional).
 */
final class Webhook
{
    private const PREFIX = 'whsec_';
    /** The key is held by a closure so that dumping the verifier cannot show it. */
    private readonly \Closure $key;

    /**
     * @param int $tolerance seconds a delivery's timestamp may be off, either way
     * @throws WebhookVerificationError when the secret is not base64
     */
    public function __construct(string $secret, private readonly int $tolerance = 300)
    {
        $key = base64_decode(str_starts_with($secret, self::PREFIX) ? substr($secret, strlen(self::PREFIX)) : $secret, true);
        if ($key === false || $key === '') {
            throw new WebhookVerificationError('the webhook secret is not a whsec_… secret (base64)');
        }
        $this->key = static fn (): string => $key;
    }

    /**
     * Checks the delivery and answers its event: the typed model of its type (a
     * Model\ContactCreatedEvent …), or a GenericEvent for a type this SDK does not know.
     *
     * @param string $payload the raw body, exactly as received (not re-encoded JSON)
     * @param array<string, string|list<string>> $headers any case; values as strings or lists of
     *        strings (PSR-7 `getHeaders()`); `$_SERVER`'s `HTTP_WEBHOOK_ID` form works too
     * @throws WebhookVerificationError
     */
    public function verify(string $payload, array $headers): object
    {
        $headers = self::normalise($headers);
        $id = $headers['webhook-id'] ?? '';
        $timestamp = $headers['webhook-timestamp'] ?? '';
        $signatures = $headers['webhook-signature'] ?? '';
        if ($id === '' || $timestamp === '' || $signatures === '') {
            throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
        }
        if (!ctype_digit($timestamp)) {
            throw new WebhookVerificationError('webhook-timestamp is not a Unix time');
        }
        if (abs(time() - (int) $timestamp) > $this->tolerance) {
            throw new WebhookVerificationError("webhook-timestamp is more than {$this->tolerance} s away from now");
        }
        $expected = $this->signature($id, $timestamp, $payload);
        $matched = false;
        foreach (preg_split('/\s+/', trim($signatures)) as $entry) {
            [$version, $signature] = array_pad(explode(',', $entry, 2), 2, '');
            $decoded = base64_decode($signature, true);
            if ($version === 'v1' && $decoded !== false && hash_equals($expected, $decoded)) {
                $matched = true;
            }
        }
        if (!$matched) {
            throw new WebhookVerificationError('no signature matches');
        }
        return self::parse($payload);
    }

    /**
     * The `webhook-signature` value of a delivery (for testing a receiver).
     */
    public function sign(string $msgId, int|\DateTimeInterface $timestamp, string $payload): string
    {
        $seconds = $timestamp instanceof \DateTimeInterface ? $timestamp->getTimestamp() : $timestamp;
        return 'v1,' . base64_encode($this->signature($msgId, (string) $seconds, $payload));
    }

    private function signature(string $id, string $timestamp, string $payload): string
    {
        return hash_hmac('sha256', "$id.$timestamp.$payload", ($this->key)(), true);
    }

    /**
     * @param array<string, string|list<string>> $headers
     * @return array<string, string>
     */
    private static function normalise(array $headers): array
    {
        $normalised = [];
        foreach ($headers as $name => $value) {
            $name = str_replace('_', '-', strtolower((string) $name));
            if (str_starts_with($name, 'http-')) {
                $name = substr($name, 5);
            }
            $values = array_filter(is_array($value) ? $value : [$value], 'is_scalar');
            // Several signature values (two lines) are one space-separated list.
            $normalised[$name] = trim(implode(' ', array_map('strval', $values)));
        }
        return $normalised;
    }

    private static function parse(string $payload): object
    {
        try {
            $event = json_decode($payload, false, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new WebhookVerificationError('the payload is not JSON', null, null, null, null, $e);
        }
        if (!is_object($event) || !is_string($event->type ?? null) || !is_string($event->id ?? null)) {
            throw new WebhookVerificationError('the payload is not a Sendline event');
        }
        try {
            // Each known type has its model: `contact.created` is Model\ContactCreatedEvent.
            $model = 'Sendline\\Model\\' . str_replace(' ', '', ucwords(str_replace(['.', '_'], ' ', $event->type))) . 'Event';
            if (str_contains($event->type, '.') && is_subclass_of($model, ModelInterface::class)) {
                return ObjectSerializer::deserialize($event, '\\' . $model);
            }
            $raw = json_decode($payload, true);
            return new GenericEvent(
                $event->id,
                $event->type,
                is_string($raw['created_at'] ?? null) ? new \DateTimeImmutable($raw['created_at']) : null,
                is_string($raw['account_id'] ?? null) ? $raw['account_id'] : null,
                is_array($raw['data'] ?? null) ? $raw['data'] : [],
                $raw,
            );
        } catch (\Exception $e) {
            throw new WebhookVerificationError("the payload is not a valid {$event->type} event: {$e->getMessage()}", null, null, null, null, $e);
        }
    }

    /** @return array<string, mixed> */
    public function __debugInfo(): array
    {
        return ['secret' => '[hidden]', 'tolerance' => $this->tolerance];
    }
}
