<?php
// Sendline\Webhook: Standard Webhooks signatures, headers in any form, events of unknown types.

use GuzzleHttp\Psr7\ServerRequest;
use PHPUnit\Framework\TestCase;
use Sendline\Errors\SendlineError;
use Sendline\Errors\WebhookVerificationError;
use Sendline\GenericEvent;
use Sendline\Model\WebhookTestEvent;
use Sendline\Webhook;

final class WebhookTest extends TestCase
{
    private const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

    private static function event(string $type, array $data): string
    {
        return json_encode(['id' => 'evt_1', 'type' => $type, 'created_at' => '2026-11-23T06:00:00.000Z', 'account_id' => 'acc_1', 'data' => $data], JSON_UNESCAPED_UNICODE);
    }

    /** @return array<string, string> */
    private static function headers(string $body, ?int $at = null, string $secret = self::SECRET): array
    {
        $at ??= time();
        return ['webhook-id' => 'evt_1', 'webhook-timestamp' => (string) $at, 'webhook-signature' => (new Webhook($secret))->sign('evt_1', $at, $body)];
    }

    public function testAKnownTypeGivesItsModel(): void
    {
        $body = self::event('webhook.test', ['webhook_id' => 'wh_1', 'message' => 'Grüße']);
        $event = (new Webhook(self::SECRET))->verify($body, self::headers($body));
        $this->assertInstanceOf(WebhookTestEvent::class, $event);
        $this->assertSame('Grüße', $event->getData()->getMessage());
        $this->assertEquals(new DateTime('2026-11-23T06:00:00Z'), $event->getCreatedAt());
    }

    public function testAnUnknownTypeGivesAGenericEvent(): void
    {
        $body = self::event('contact.teleported', ['contact_id' => 'ct_1', 'where' => 'Mars']);
        $event = (new Webhook(self::SECRET))->verify($body, self::headers($body));
        $this->assertInstanceOf(GenericEvent::class, $event);
        $this->assertSame(['evt_1', 'contact.teleported', 'acc_1', ['contact_id' => 'ct_1', 'where' => 'Mars']], [$event->getId(), $event->getType(), $event->getAccountId(), $event->getData()]);
        $this->assertSame('2026-11-23T06:00:00+00:00', $event->getCreatedAt()->format(DATE_ATOM));
        $this->assertSame(json_decode($body, true), json_decode(json_encode($event), true));
    }

    public function testHeadersAsPsr7GivesThemAndAsServerVariables(): void
    {
        $body = self::event('webhook.test', ['webhook_id' => 'wh_1', 'message' => 'hi']);
        $headers = self::headers($body);
        $request = new ServerRequest('POST', '/hook', $headers, $body);
        $verifier = new Webhook(self::SECRET);
        $this->assertSame('evt_1', $verifier->verify((string) $request->getBody(), $request->getHeaders())->getId());
        $server = ['HTTP_WEBHOOK_ID' => $headers['webhook-id'], 'HTTP_WEBHOOK_TIMESTAMP' => $headers['webhook-timestamp'], 'HTTP_WEBHOOK_SIGNATURE' => $headers['webhook-signature']];
        $this->assertSame('evt_1', $verifier->verify($body, $server)->getId());
        $upper = array_change_key_case($headers, CASE_UPPER);
        $this->assertSame('evt_1', $verifier->verify($body, $upper)->getId());
    }

    public function testTheSecretMayComeWithoutItsPrefixAndAnyOfSeveralSignaturesWillDo(): void
    {
        $body = self::event('webhook.test', ['webhook_id' => 'wh_1', 'message' => 'hi']);
        $headers = self::headers($body);
        $other = (new Webhook('whsec_' . base64_encode(random_bytes(24))))->sign('evt_1', (int) $headers['webhook-timestamp'], $body);
        $headers['webhook-signature'] = "$other {$headers['webhook-signature']}";
        $this->assertSame('evt_1', (new Webhook(substr(self::SECRET, 6)))->verify($body, $headers)->getId());
    }

    public function testTheToleranceIsFiveMinutesEitherWay(): void
    {
        $body = self::event('webhook.test', ['webhook_id' => 'wh_1', 'message' => 'hi']);
        $verifier = new Webhook(self::SECRET);
        $this->assertSame('evt_1', $verifier->verify($body, self::headers($body, time() - 240))->getId());
        $this->assertSame('evt_1', $verifier->verify($body, self::headers($body, time() + 240))->getId());
        foreach ([time() - 360, time() + 360] as $at) {
            try {
                $verifier->verify($body, self::headers($body, $at));
                $this->fail('accepted a timestamp 6 minutes away');
            } catch (WebhookVerificationError $e) {
                $this->assertStringContainsString('300 s', $e->getMessage());
            }
        }
    }

    public static function malformed(): array
    {
        $body = self::event('webhook.test', ['webhook_id' => 'wh_1', 'message' => 'hi']);
        $good = self::headers($body);
        return [
            'altered body' => [str_replace('hi', 'ho', $body), $good],
            'no headers' => [$body, []],
            'a signature that is not base64' => [$body, ['webhook-signature' => 'v1,***not base64***'] + $good],
            'a signature without a version' => [$body, ['webhook-signature' => 'garbage'] + $good],
            'a timestamp that is not a number' => [$body, ['webhook-timestamp' => 'yesterday'] + $good],
            'headers of other types' => [$body, ['webhook-id' => ['a' => ['nested']], 'webhook-timestamp' => 1.5] + $good],
            'a signed body that is not JSON' => ['not json', self::headers('not json')],
            'a signed body that is not an event' => ['[1, 2]', self::headers('[1, 2]')],
        ];
    }

    /** @dataProvider malformed */
    public function testAnythingMalformedIsAVerificationError(string $body, array $headers): void
    {
        try {
            (new Webhook(self::SECRET))->verify($body, $headers);
            $this->fail('accepted');
        } catch (WebhookVerificationError $e) {
            $this->assertInstanceOf(SendlineError::class, $e);
            $this->assertNull($e->status);
        }
    }

    public function testASecretThatIsNotBase64IsAVerificationErrorAndTheSecretIsNeverShown(): void
    {
        $this->expectException(WebhookVerificationError::class);
        $verifier = new Webhook(self::SECRET);
        ob_start();
        var_dump($verifier);
        print_r($verifier);
        var_export($verifier);
        $this->assertStringNotContainsString(substr(self::SECRET, 6), ob_get_clean());
        new Webhook('whsec_***');
    }
}
