<?php
// The review's findings (issue 20): credentials and header values, local validation errors,
// answers that are not JSON, error messages and connection errors, each against a real
// loopback server. The webhook findings are in WebhookTest.

use GuzzleHttp\Exception\ConnectException;
use PHPUnit\Framework\TestCase;
use Sendline\Errors;
use Sendline\Sendline;

final class ReviewFixesTest extends TestCase
{
    private const KEY = 'sl_live_0123456789abcdefSECRETPART';
    private static LoopbackServer $server;

    public static function setUpBeforeClass(): void
    {
        self::$server = new LoopbackServer();
    }

    public static function tearDownAfterClass(): void
    {
        self::$server->stop();
    }

    private static function client(array $options = []): Sendline
    {
        return new Sendline(['api_key' => self::KEY, 'base_url' => self::$server->url] + $options);
    }

    private static function page(): array
    {
        return ['status' => 200, 'body' => ['data' => [], 'has_more' => false, 'next_cursor' => null]];
    }

    /** Runs $call, which must throw a local ValidationError at $pointer without any request. */
    private function assertLocalValidationError(callable $call, string $code, string $pointer): Errors\ValidationError
    {
        self::$server->respond([self::page(), self::page()]);
        try {
            $call();
            $this->fail("no ValidationError at $pointer");
        } catch (Errors\ValidationError $e) {
            $this->assertNull($e->status);
            $this->assertSame($code, $e->code);
            $this->assertCount(1, $e->errors);
            $this->assertSame($pointer, $e->errors[0]->getPointer());
            $this->assertNotSame('', $e->errors[0]->getDetail());
        }
        $this->assertSame([], self::$server->requests(), 'a request was sent');
        return $e;
    }

    public function testAKeyWithATrailingNewlineIsTrimmed(): void
    {
        self::$server->respond([self::page()]);
        (new Sendline(api_key: self::KEY . "\n", base_url: self::$server->url))->contacts->list(limit: 1)->firstPage();
        [$request] = self::$server->requests();
        $this->assertSame('Bearer ' . self::KEY, $request['headers']['authorization']);
    }

    public static function badKeys(): array
    {
        return [
            'a header injection' => [self::KEY . "\r\nX-Injected: yes"],
            'a space inside' => ['sl_live_0123 SECRETPART'],
            'a control character' => ["sl_live_0123\x01SECRETPART"],
            'a non-ASCII letter' => ['sl_live_0123ÉSECRETPART'],
        ];
    }

    /** @dataProvider badKeys */
    public function testAKeyOutsideVisibleAsciiIsAConfigurationErrorThatNeverShowsIt(string $key): void
    {
        self::$server->respond([self::page()]);
        try {
            (new Sendline(api_key: $key, base_url: self::$server->url))->contacts->list(limit: 1)->firstPage();
            $this->fail('no ConfigurationError');
        } catch (Errors\ConfigurationError $e) {
            $this->assertInstanceOf(Errors\SendlineError::class, $e);
            $this->assertNull($e->status);
            $this->assertStringNotContainsString('SECRETPART', print_r($e, true));
            $this->assertStringNotContainsString('sl_live_0123', $e->getMessage());
        }
        $this->assertSame([], self::$server->requests());
    }

    public function testABaseUrlWithALineBreakOrSpaceIsAConfigurationError(): void
    {
        foreach (['http://127.0.0.1:9/\r\nX-Injected: yes', 'http://exa mple.com', "http://127.0.0.1:9/a\tb"] as $url) {
            try {
                new Sendline(api_key: self::KEY, base_url: $url);
                $this->fail("accepted '$url'");
            } catch (Errors\ConfigurationError $e) {
                $this->assertStringContainsString('base_url', $e->getMessage());
            }
        }
    }

    public static function badIdempotencyKeys(): array
    {
        return [
            'a header injection' => ["x\r\nX-Injected2: yes"],
            'empty' => [''],
            'a leading space' => [' key'],
            'a trailing space' => ['key '],
            'longer than 255' => [str_repeat('k', 256)],
            'not ASCII' => ['clé'],
        ];
    }

    /** @dataProvider badIdempotencyKeys */
    public function testAnIdempotencyKeyOutsideTheServersRuleIsAValidationErrorNeverSent(string $key): void
    {
        $this->assertLocalValidationError(
            fn () => self::client()->contacts->create(email: 'ada@example.com', idempotency_key: $key),
            'invalid_idempotency_key',
            'header.Idempotency-Key',
        );
    }

    public function testTheLongestAndShortestIdempotencyKeysAreSent(): void
    {
        $contact = ['id' => 'ct_1', 'email' => 'ada@example.com', 'status' => 'subscribed', 'tags' => [], 'fields' => new stdClass(), 'created_at' => '2026-11-23T06:00:00.000Z', 'updated_at' => '2026-11-23T06:00:00.000Z'];
        self::$server->respond([['status' => 201, 'body' => $contact], ['status' => 201, 'body' => $contact], ['status' => 201, 'body' => $contact]]);
        self::client()->contacts->create(email: 'ada@example.com', idempotency_key: str_repeat('k', 255));
        self::client()->contacts->create(email: 'ada@example.com', idempotency_key: 'a b');
        self::client()->contacts->create(email: 'ada@example.com', idempotency_key: 42);
        $this->assertSame([str_repeat('k', 255), 'a b', '42'], array_column(array_column(self::$server->requests(), 'headers'), 'idempotency-key'));
    }

    public static function emptyIds(): array
    {
        return [
            'get with an empty id' => [fn (Sendline $c) => $c->contacts->get('')],
            'get with a blank id' => [fn (Sendline $c) => $c->contacts->get('  ')],
            'get with null' => [fn (Sendline $c) => $c->contacts->get(null)],
            'delete with an empty id' => [fn (Sendline $c) => $c->contacts->delete('')],
            'update with an empty id' => [fn (Sendline $c) => $c->contacts->update('', first_name: 'Ada')],
            'a list under an empty id' => [fn (Sendline $c) => $c->contacts->activity('')->firstPage()],
            'an import with an empty id' => [fn (Sendline $c) => $c->contactImports->wait('')],
        ];
    }

    /** @dataProvider emptyIds */
    public function testAnEmptyIdIsAValidationErrorBeforeAnyRequest(Closure $call): void
    {
        $this->assertLocalValidationError(fn () => $call(self::client()), 'validation_failed', 'path.id');
    }

    public static function locallyRefused(): array
    {
        return [
            'a limit above the maximum' => [fn (Sendline $c) => $c->contacts->list(limit: 1000)->firstPage(), 'query.limit'],
            'a limit below the minimum' => [fn (Sendline $c) => iterator_to_array($c->contacts->list(['limit' => 0])), 'query.limit'],
            'an unknown status' => [fn (Sendline $c) => $c->contacts->create(email: 'ada@example.com', status: 'weird'), '/status'],
            'a campaigns limit above the maximum' => [fn (Sendline $c) => $c->campaigns->list(limit: 501)->firstPage(), 'query.limit'],
        ];
    }

    /** @dataProvider locallyRefused */
    public function testWhatTheGeneratedLayerRefusesIsAValidationErrorWithTheServersPointer(Closure $call, string $pointer): void
    {
        $this->assertLocalValidationError(fn () => $call(self::client()), 'validation_failed', $pointer);
    }

    public static function notJson(): array
    {
        return [
            'HTML' => [['status' => 200, 'headers' => ['Content-Type' => 'text/html'], 'body' => '<html>maintenance</html>']],
            'a JSON list' => [['status' => 200, 'headers' => ['Content-Type' => 'application/json'], 'body' => '[]']],
            'a JSON string' => [['status' => 200, 'headers' => ['Content-Type' => 'application/json'], 'body' => '"ok"']],
        ];
    }

    /** @dataProvider notJson */
    public function testA2xxAnswerThatIsNotTheJsonExpectedIsAnInvalidResponse(array $answer): void
    {
        self::$server->respond([$answer, $answer, $answer]);
        try {
            self::client()->contacts->get('ct_1');
            $this->fail('no SendlineError');
        } catch (Errors\SendlineError $e) {
            $this->assertSame(Errors\SendlineError::class, get_class($e));
            $this->assertSame(200, $e->status);
            $this->assertSame('invalid_response', $e->code);
            $this->assertStringStartsWith('200: the answer is not', $e->getMessage());
        }
        $this->assertCount(1, self::$server->requests());
    }

    public function testA503WithoutAProblemBodyNamesItsStatusAndReason(): void
    {
        self::$server->respond([['status' => 503, 'body' => '']]);
        try {
            self::client(['max_retries' => 0])->contacts->get('ct_1');
            $this->fail('no ServerError');
        } catch (Errors\ServerError $e) {
            $this->assertSame('503: Service Unavailable', $e->getMessage());
            $this->assertNull($e->code);
        }
    }

    public function testAConnectionErrorNamesTheUrlWithoutItsQueryAndChainsItsCause(): void
    {
        $url = 'http://127.0.0.1:' . LoopbackServer::freePort();
        $client = new Sendline(api_key: self::KEY, base_url: $url, max_retries: 0);
        try {
            $client->contacts->list(email: 'secret@example.com', limit: 5)->firstPage();
            $this->fail('no APIConnectionError');
        } catch (Errors\APIConnectionError $e) {
            $this->assertStringStartsWith("Could not reach $url/api/v1/contacts: ", $e->getMessage());
            $this->assertStringNotContainsString('secret', $e->getMessage());
            $this->assertStringNotContainsString('?', $e->getMessage());
            $this->assertGreaterThan(strlen("Could not reach $url/api/v1/contacts: "), strlen($e->getMessage()));
            $this->assertInstanceOf(ConnectException::class, $e->getPrevious());
        }
    }

    public function testATimeoutNamesTheUrlToo(): void
    {
        self::$server->respond([['sleep' => 2, 'body' => []]]);
        try {
            self::client(['timeout' => 0.5, 'max_retries' => 0])->contacts->get('ct_1');
            $this->fail('no APITimeoutError');
        } catch (Errors\APITimeoutError $e) {
            $this->assertSame('Could not reach ' . self::$server->url . '/api/v1/contacts/ct_1: no answer within 0.5 s', $e->getMessage());
            $this->assertNotNull($e->getPrevious());
        }
    }

    public function testWaitRunningOutOfTimeNamesTheImportAndItsStatus(): void
    {
        $import = ['id' => 'imp_1', 'status' => 'queued', 'mode' => 'upsert', 'total_rows' => 1, 'processed_rows' => 0, 'created' => 0, 'updated' => 0, 'skipped' => 0, 'failed' => 0, 'errors' => [], 'created_at' => '2026-11-23T06:00:00.000Z', 'updated_at' => '2026-11-23T06:00:00.000Z'];
        self::$server->respond([['body' => $import], ['body' => $import]]);
        $parameters = (new ReflectionMethod(\Sendline\Resources\ContactImports::class, 'wait'))->getParameters();
        $this->assertSame([600.0, 1.0], [$parameters[1]->getDefaultValue(), $parameters[2]->getDefaultValue()]);
        try {
            self::client()->contactImports->wait('imp_1', timeout: 0.1, interval: 0.2);
            $this->fail('no APITimeoutError');
        } catch (Errors\APITimeoutError $e) {
            $this->assertStringContainsString('imp_1', $e->getMessage());
            $this->assertStringContainsString(' queued ', $e->getMessage());
        }
    }
}
