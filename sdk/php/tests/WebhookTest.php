<?php
// Sendline\Webhook: Standard Webhooks signatures, headers in any form, events of unknown types.

use GuzzleHttp\Psr7\ServerRequest;
use PHPUnit\Framework\TestCase;
use Sendline\Errors\SendlineError;
use Sendline\Errors\WebhookVerificationError;
use Sendline\UnknownEvent;
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

    public function testAnUnknownTypeGivesAUnknownEvent(): void
    {
        $body = self::event('contact.teleported', ['contact_id' => 'ct_1', 'where' => 'Mars']);
        $event = (new Webhook(self::SECRET))->verify($body, self::headers($body));
        $this->assertInstanceOf(UnknownEvent::class, $event);
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

    public function testAKnownTypeWhosePayloadDoesNotFitItsModelIsAnUnknownEvent(): void
    {
        $verifier = new Webhook(self::SECRET);
        foreach ([
            self::event('contact.created', ['contact' => ['id' => 'ct_1']]),
            self::event('contact.created', []),
            self::event('contact.created', ['contact' => 'ct_1']),
            json_encode(['id' => 'evt_1', 'type' => 'contact.created', 'data' => ['contact' => ['id' => 'ct_1']]]),
            json_encode(['id' => 'evt_1', 'type' => 'contact.created', 'created_at' => 'yesterday', 'account_id' => 'acc_1', 'data' => []]),
        ] as $body) {
            $event = $verifier->verify($body, self::headers($body));
            $this->assertInstanceOf(UnknownEvent::class, $event, $body);
            $this->assertSame(['evt_1', 'contact.created'], [$event->getId(), $event->getType()]);
            $this->assertSame(json_decode($body, true)['data'] === 'ct_1' ? [] : json_decode($body, true)['data'], $event->getData());
        }
    }

    public function testAKnownTypeWithAllItsFieldsIsTyped(): void
    {
        $contact = ['id' => 'ct_1', 'email' => 'ada@example.com', 'first_name' => null, 'last_name' => 'Lovelace', 'attributes' => ['plan' => 'pro'], 'tags' => [], 'timezone' => null, 'status' => 'subscribed', 'status_reason' => null, 'status_changed_at' => null, 'created_at' => '2026-11-23T06:00:00.000Z', 'updated_at' => '2026-11-23T06:00:00.000Z'];
        $body = self::event('contact.created', ['contact' => $contact]);
        $event = (new Webhook(self::SECRET))->verify($body, self::headers($body));
        $this->assertInstanceOf(Sendline\Model\ContactCreatedEvent::class, $event);
        $this->assertSame('ada@example.com', $event->getData()->getContact()->getEmail());
        unset($contact['first_name']);
        $body = self::event('contact.created', ['contact' => $contact]);
        $this->assertInstanceOf(UnknownEvent::class, (new Webhook(self::SECRET))->verify($body, self::headers($body)));
    }

    public static function messages(): array
    {
        $body = self::event('webhook.test', ['webhook_id' => 'wh_1', 'message' => 'hi']);
        $good = self::headers($body);
        $missing = 'missing webhook-id, webhook-timestamp or webhook-signature header';
        return [
            'no headers' => [$body, [], $missing],
            'no signature' => [$body, array_diff_key($good, ['webhook-signature' => 1]), $missing],
            'a timestamp that is not a number' => [$body, ['webhook-timestamp' => 'yesterday'] + $good, 'webhook timestamp is not a number'],
            'an old timestamp' => [$body, self::headers($body, time() - 400), 'webhook timestamp is more than 300 s from now'],
            'a future timestamp' => [$body, self::headers($body, time() + 400), 'webhook timestamp is more than 300 s from now'],
            'an altered body' => [str_replace('hi', 'ho', $body), $good, 'no webhook signature matches'],
            'a signed body that is not JSON' => ['not json', self::headers('not json'), 'webhook body is not a JSON event'],
            'a signed body that is not an event' => ['[1, 2]', self::headers('[1, 2]'), 'webhook body is not a JSON event'],
        ];
    }

    /** @dataProvider messages */
    public function testEachFailureHasTheMessageAllFourSdksShare(string $body, array $headers, string $message): void
    {
        try {
            (new Webhook(self::SECRET))->verify($body, $headers);
            $this->fail('accepted');
        } catch (WebhookVerificationError $e) {
            $this->assertSame($message, $e->getMessage());
        }
    }

    public function testASecretThatIsNotBase64IsRefusedWithTheSharedMessage(): void
    {
        foreach (['not base64!!', 'whsec_***', 'whsec_', ''] as $secret) {
            try {
                new Webhook($secret);
                $this->fail("accepted '$secret'");
            } catch (WebhookVerificationError $e) {
                $this->assertSame('webhook secret is not a whsec_ base64 secret', $e->getMessage());
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
