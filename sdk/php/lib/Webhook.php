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
            throw new WebhookVerificationError('webhook secret is not a whsec_ base64 secret');
        }
        $this->key = static fn (): string => $key;
    }

    /**
     * Checks the delivery and answers its event: the typed model of its type (a
     * Model\ContactCreatedEvent …), or an UnknownEvent for a type this SDK does not know
     * or a payload that does not fit its type's model.
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
            throw new WebhookVerificationError('webhook timestamp is not a number');
        }
        if (abs(time() - (int) $timestamp) > $this->tolerance) {
            throw new WebhookVerificationError("webhook timestamp is more than {$this->tolerance} s from now");
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
            throw new WebhookVerificationError('no webhook signature matches');
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
            throw new WebhookVerificationError('webhook body is not a JSON event', null, null, null, null, $e);
        }
        if (!is_object($event) || !is_string($event->type ?? null) || !is_string($event->id ?? null)) {
            throw new WebhookVerificationError('webhook body is not a JSON event');
        }
        // Each known type has its model: `contact.created` is Model\ContactCreatedEvent.
        $model = 'Sendline\\Model\\' . str_replace(' ', '', ucwords(str_replace(['.', '_'], ' ', $event->type))) . 'Event';
        if (str_contains($event->type, '.') && is_subclass_of($model, ModelInterface::class)) {
            try {
                $typed = ObjectSerializer::deserialize($event, '\\' . $model);
            } catch (\Throwable) {
                $typed = null;
            }
            // A payload without the fields its type promises is not shown as that type with nulls.
            if ($typed instanceof ModelInterface && self::complete($typed, $event)) {
                return $typed;
            }
        }
        $raw = json_decode($payload, true);
        try {
            $createdAt = is_string($raw['created_at'] ?? null) ? new \DateTimeImmutable($raw['created_at']) : null;
        } catch (\Exception) {
            $createdAt = null;
        }
        return new UnknownEvent(
            $event->id,
            $event->type,
            $createdAt,
            is_string($raw['account_id'] ?? null) ? $raw['account_id'] : null,
            is_array($raw['data'] ?? null) ? $raw['data'] : [],
            $raw,
        );
    }

    /**
     * Whether the model and every model inside it have all their required fields in `$raw`, the
     * JSON they were read from (the generated reader makes an absent nullable field null).
     */
    private static function complete(mixed $value, mixed $raw): bool
    {
        if (is_array($value)) {
            foreach ($value as $index => $item) {
                if (!self::complete($item, is_array($raw) ? $raw[$index] ?? null : null)) {
                    return false;
                }
            }
            return true;
        }
        if (!$value instanceof ModelInterface) {
            return true;
        }
        if (!is_object($raw)) {
            return false;
        }
        $names = $value::attributeMap();
        foreach ($value->listInvalidProperties() as $problem) {
            // A required field that may be null is there when the payload gives it as null.
            $given = preg_match("/^'(\\w+)' can't be null$/", $problem, $m) === 1 && $value::isNullable($m[1])
                && property_exists($raw, $names[$m[1]] ?? $m[1]) && $raw->{$names[$m[1]] ?? $m[1]} === null;
            if (!$given) {
                return false;
            }
        }
        foreach ($value::getters() as $property => $getter) {
            if (!self::complete($value->$getter(), $raw->{$names[$property]} ?? null)) {
                return false;
            }
        }
        return true;
    }

    /** @return array<string, mixed> */
    public function __debugInfo(): array
    {
        return ['secret' => '[hidden]', 'tolerance' => $this->tolerance];
    }
}
