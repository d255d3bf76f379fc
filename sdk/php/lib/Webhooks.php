<?php
// Verifying Sendline webhooks (Standard Webhooks signatures). Hand-written; kept across regeneration.

namespace Sendline;

final class Webhooks
{
    /**
     * Checks `webhook-id`, `webhook-timestamp` and `webhook-signature` against the endpoint's
     * `whsec_…` secret and answers the typed event (e.g. a Model\ContactCreatedEvent).
     * Pass the raw body exactly as received.
     *
     * @param array<string, string> $headers
     * @throws WebhookVerificationException
     */
    public static function verify(string $secret, array $headers, string $body, int $toleranceSeconds = 300): object
    {
        $lowered = array_change_key_case($headers, CASE_LOWER);
        $id = $lowered['webhook-id'] ?? null;
        $timestamp = $lowered['webhook-timestamp'] ?? null;
        $signatures = $lowered['webhook-signature'] ?? null;
        if (!$id || !$timestamp || !$signatures) {
            throw new WebhookVerificationException('missing webhook headers');
        }
        if (!ctype_digit($timestamp) || abs(time() - (int) $timestamp) > $toleranceSeconds) {
            throw new WebhookVerificationException('timestamp outside the tolerance');
        }
        $key = base64_decode(preg_replace('/^whsec_/', '', $secret), true);
        $expected = hash_hmac('sha256', "$id.$timestamp.$body", $key, true);
        foreach (explode(' ', $signatures) as $entry) {
            [$version, $signature] = array_pad(explode(',', $entry, 2), 2, '');
            if ($version === 'v1' && hash_equals($expected, (string) base64_decode($signature, true))) {
                return ObjectSerializer::deserialize(json_decode($body), '\Sendline\Model\Event');
            }
        }
        throw new WebhookVerificationException('no signature matches');
    }
}
