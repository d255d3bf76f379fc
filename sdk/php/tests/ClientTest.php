<?php
// The client against a real HTTP server on loopback (no mocked HTTP library): retries, timeouts,
// idempotency keys, errors by status, base URLs, headers, dates, pagination and uploads.

use GuzzleHttp\Exception\ConnectException;
use PHPUnit\Framework\TestCase;
use Sendline\Errors;
use Sendline\Model\Contact;
use Sendline\Sendline;

final class ClientTest extends TestCase
{
    private const KEY = 'sl_test_0123456789abcdefSECRET';
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

    private static function contact(string $email = 'ada@example.com'): array
    {
        return ['id' => 'ct_1', 'email' => $email, 'status' => 'subscribed', 'tags' => [], 'fields' => new stdClass(), 'created_at' => '2026-11-23T06:00:00.000Z', 'updated_at' => '2026-11-23T06:00:00.000Z'];
    }

    private static function problem(int $status, string $code, array $extra = [], array $headers = []): array
    {
        return ['status' => $status, 'headers' => ['X-Request-Id' => "req_$status"] + $headers, 'body' => ['type' => "/docs/errors#$code", 'title' => 'Refused', 'status' => $status, 'code' => $code, 'detail' => "detail of $code", 'success' => false] + $extra];
    }

    public function testA503IsRetriedWithTheSameIdempotencyKeyUntilItSucceeds(): void
    {
        self::$server->respond([self::problem(503, 'unavailable'), self::problem(503, 'unavailable'), ['status' => 201, 'body' => self::contact()]]);
        $contact = self::client()->contacts->create(email: 'ada@example.com', first_name: 'Ada');
        $this->assertInstanceOf(Contact::class, $contact);
        $this->assertSame('ada@example.com', $contact->getEmail());
        $requests = self::$server->requests();
        $this->assertCount(3, $requests);
        $keys = array_unique(array_column(array_column($requests, 'headers'), 'idempotency-key'));
        $this->assertCount(1, $keys);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/', $keys[0]);
        foreach ($requests as $request) {
            $this->assertSame('POST', $request['method']);
            $this->assertSame('/api/v1/contacts', $request['uri']);
            $this->assertSame(['email' => 'ada@example.com', 'first_name' => 'Ada'], json_decode($request['body'], true));
        }
    }

    public function testEachCallHasItsOwnKeyUnlessTheCallerGivesOne(): void
    {
        self::$server->respond([['status' => 201, 'body' => self::contact()], ['status' => 201, 'body' => self::contact()], ['status' => 201, 'body' => self::contact()]]);
        $client = self::client();
        $client->contacts->create(email: 'ada@example.com');
        $client->contacts->create(email: 'ada@example.com');
        $client->contacts->create(['email' => 'ada@example.com'], idempotency_key: 'signup-42');
        $keys = array_column(array_column(self::$server->requests(), 'headers'), 'idempotency-key');
        $this->assertNotSame($keys[0], $keys[1]);
        $this->assertSame('signup-42', $keys[2]);
    }

    public function testGetsCarryNoIdempotencyKeyAndTheClientsHeaders(): void
    {
        self::$server->respond([['body' => self::contact()]]);
        self::client()->contacts->get('ct_1');
        [$request] = self::$server->requests();
        $this->assertSame('GET', $request['method']);
        $this->assertArrayNotHasKey('idempotency-key', $request['headers']);
        $this->assertArrayNotHasKey('x-api-key', $request['headers']);
        $this->assertSame('Bearer ' . self::KEY, $request['headers']['authorization']);
        $this->assertSame('sendline-php/0.1.0', $request['headers']['user-agent']);
    }

    public function testA429WithRetryAfterOfOneSecondIsWaitedForAndRetried(): void
    {
        self::$server->respond([self::problem(429, 'rate_limited', [], ['Retry-After' => '1']), ['body' => self::contact()]]);
        $started = microtime(true);
        $contact = self::client()->contacts->get('ct_1');
        $this->assertGreaterThanOrEqual(0.95, microtime(true) - $started);
        $this->assertSame('ct_1', $contact->getId());
        $this->assertCount(2, self::$server->requests());
    }

    public function testA429WithALongRetryAfterIsThrownAtOnce(): void
    {
        self::$server->respond([self::problem(429, 'rate_limited', [], ['Retry-After' => '52']), ['body' => self::contact()]]);
        $started = microtime(true);
        try {
            self::client()->contacts->get('ct_1');
            $this->fail('no RateLimitError');
        } catch (Errors\RateLimitError $e) {
            $this->assertSame(52.0, $e->retryAfter);
            $this->assertSame(429, $e->status);
            $this->assertSame('rate_limited', $e->code);
        }
        $this->assertLessThan(1, microtime(true) - $started);
        $this->assertCount(1, self::$server->requests());
    }

    public function testAConflictOfIdempotencyKeysIsRetriedButOtherConflictsAreNot(): void
    {
        self::$server->respond([self::problem(409, 'idempotency_key_in_use'), ['status' => 201, 'body' => self::contact()]]);
        self::client()->contacts->create(email: 'ada@example.com');
        $this->assertCount(2, self::$server->requests());

        self::$server->respond([self::problem(409, 'contact_exists', ['existing_id' => 'ct_9']), ['status' => 201, 'body' => self::contact()]]);
        try {
            self::client()->contacts->create(email: 'ada@example.com');
            $this->fail('no ConflictError');
        } catch (Errors\ConflictError $e) {
            $this->assertSame('ct_9', $e->existingId);
            $this->assertSame('ct_9', $e->getExistingId());
        }
        $this->assertCount(1, self::$server->requests());
    }

    public function testNoRetriesWhenMaxRetriesIsZero(): void
    {
        self::$server->respond([self::problem(503, 'unavailable'), ['body' => self::contact()]]);
        $this->expectException(Errors\ServerError::class);
        try {
            self::client(['max_retries' => 0])->contacts->get('ct_1');
        } finally {
            $this->assertCount(1, self::$server->requests());
        }
    }

    /** A server of its own, stopped with the request it leaves hanging, so that no other test waits for it. */
    private static function hangingServer(): LoopbackServer
    {
        $server = new LoopbackServer();
        $server->respond([['sleep' => 5, 'body' => self::contact()]]);
        return $server;
    }

    public function testAHangingServerIsATimeout(): void
    {
        $server = self::hangingServer();
        $started = microtime(true);
        try {
            (new Sendline(api_key: self::KEY, base_url: $server->url, timeout: 0.5, max_retries: 0))->contacts->get('ct_1');
            $this->fail('no APITimeoutError');
        } catch (Errors\APITimeoutError $e) {
            $this->assertInstanceOf(Errors\APIConnectionError::class, $e);
            $this->assertInstanceOf(ConnectException::class, $e->getPrevious());
            $this->assertNull($e->status);
        } finally {
            $server->stop();
        }
        $elapsed = microtime(true) - $started;
        $this->assertGreaterThanOrEqual(0.45, $elapsed);
        $this->assertLessThan(1.5, $elapsed);
    }

    public function testThePerCallTimeoutWins(): void
    {
        $server = self::hangingServer();
        $started = microtime(true);
        $this->expectException(Errors\APITimeoutError::class);
        try {
            (new Sendline(api_key: self::KEY, base_url: $server->url))->contacts->get('ct_1', timeout: 0.5, max_retries: 0);
        } finally {
            $server->stop();
            $this->assertLessThan(1.5, microtime(true) - $started);
        }
    }

    public function testATimedOutPostIsRetriedWithTheSameKey(): void
    {
        $server = new LoopbackServer();
        $server->respond([['sleep' => 0.8, 'status' => 201, 'body' => self::contact()], ['status' => 201, 'body' => self::contact()]]);
        try {
            (new Sendline(api_key: self::KEY, base_url: $server->url, timeout: 0.5, max_retries: 1))->contacts->create(email: 'ada@example.com');
            [$first, $second] = $server->requests();
            $this->assertSame($first['headers']['idempotency-key'], $second['headers']['idempotency-key']);
        } finally {
            $server->stop();
        }
    }

    public function testAPerCallTimeoutOfZeroIsRefused(): void
    {
        $this->expectException(InvalidArgumentException::class);
        self::client()->contacts->get('ct_1', timeout: 0);
    }

    public function testLoginMakesAClientOfTheSessionsToken(): void
    {
        self::$server->respond([
            ['body' => ['success' => true, 'token' => 'jwt.session.token', 'refresh_token' => 'rt_1', 'expires_in' => 900, 'user' => ['id' => 'usr_1', 'email' => 'ada@example.com', 'name' => 'Ada', 'role' => 'owner', 'account_id' => 'acc_1', 'created_at' => '2026-11-23T06:00:00.000Z']]],
            ['body' => self::contact()],
            self::problem(401, 'invalid_credentials'),
        ]);
        $client = Sendline::login(self::$server->url . '/api/', 'ada@example.com', 'a long password');
        $client->contacts->get('ct_1');
        [$login, $get] = self::$server->requests();
        $this->assertSame('/api/v1/auth/login', $login['uri']);
        $this->assertSame(['email' => 'ada@example.com', 'password' => 'a long password'], json_decode($login['body'], true));
        $this->assertArrayNotHasKey('authorization', $login['headers']);
        $this->assertSame('Bearer jwt.session.token', $get['headers']['authorization']);
        $this->expectException(Errors\AuthenticationError::class);
        Sendline::login(self::$server->url, 'ada@example.com', 'wrong');
    }

    public function testARefusedConnectionIsAConnectionErrorAfterRetries(): void
    {
        $client = new Sendline(api_key: self::KEY, base_url: 'http://127.0.0.1:' . LoopbackServer::freePort(), max_retries: 1);
        try {
            $client->contacts->get('ct_1');
            $this->fail('no APIConnectionError');
        } catch (Errors\APIConnectionError $e) {
            $this->assertNotInstanceOf(Errors\APITimeoutError::class, $e);
            $this->assertInstanceOf(ConnectException::class, $e->getPrevious());
            $this->assertStringNotContainsString(self::KEY, print_r($e, true));
        }
    }

    public static function statuses(): array
    {
        return [
            '400' => [400, 'validation_failed', Errors\ValidationError::class],
            '401' => [401, 'unauthorized', Errors\AuthenticationError::class],
            '403' => [403, 'insufficient_scope', Errors\PermissionDeniedError::class],
            '404' => [404, 'not_found', Errors\NotFoundError::class],
            '409' => [409, 'contact_exists', Errors\ConflictError::class],
            '413' => [413, 'payload_too_large', Errors\SendlineError::class],
            '422' => [422, 'idempotency_key_reused', Errors\ValidationError::class],
            '429' => [429, 'rate_limited', Errors\RateLimitError::class],
            '500' => [500, 'internal_error', Errors\ServerError::class],
            '502' => [502, 'bad_gateway', Errors\ServerError::class],
        ];
    }

    /** @dataProvider statuses */
    public function testEachStatusHasItsErrorClass(int $status, string $code, string $class): void
    {
        self::$server->respond([self::problem($status, $code, ['errors' => [['pointer' => '/email', 'detail' => 'must be an email address']]])]);
        try {
            self::client(['max_retries' => 0])->contacts->create(email: 'not an email');
            $this->fail("no $class");
        } catch (Errors\SendlineError $e) {
            $this->assertSame($class, get_class($e));
            $this->assertSame($status, $e->status);
            $this->assertSame($code, $e->code);
            $this->assertSame($code, $e->getCode());
            $this->assertSame("req_$status", $e->requestId);
            $this->assertSame("detail of $code", $e->problem['detail']);
            $this->assertSame("$status $code: detail of $code", $e->getMessage());
            if ($e instanceof Errors\ValidationError) {
                $this->assertSame('/email', $e->errors[0]->getPointer());
                $this->assertSame('must be an email address', $e->errors[0]->getDetail());
            }
        }
    }

    public function testAnAnswerThatIsNotAProblemStillGivesItsStatus(): void
    {
        self::$server->respond([['status' => 502, 'body' => '<html>Bad Gateway</html>']]);
        try {
            self::client(['max_retries' => 0])->contacts->get('ct_1');
            $this->fail('no ServerError');
        } catch (Errors\ServerError $e) {
            $this->assertSame(502, $e->status);
            $this->assertNull($e->code);
            $this->assertStringStartsWith('502', $e->getMessage());
        }
    }

    public static function baseUrls(): array
    {
        return array_combine($forms = ['', '/', '/api', '/api/', '/api/v1', '/api/v1/', '/v1'], array_map(fn ($f) => [$f], $forms));
    }

    /** @dataProvider baseUrls */
    public function testEveryFormOfTheBaseUrlReachesTheApi(string $suffix): void
    {
        self::$server->respond([['body' => self::contact()]]);
        $client = new Sendline(api_key: self::KEY, base_url: self::$server->url . $suffix);
        $client->contacts->get('ct_1');
        $this->assertSame('/api/v1/contacts/ct_1', self::$server->requests()[0]['uri']);
        $this->assertSame(self::$server->url . '/api/v1', $client->baseUrl());
    }

    public function testHttpsIsNeverDowngraded(): void
    {
        $this->assertSame('https://mail.example.com/api/v1', (new Sendline(api_key: self::KEY, base_url: 'https://mail.example.com/api/'))->baseUrl());
        $this->expectException(Errors\ConfigurationError::class);
        new Sendline(api_key: self::KEY, base_url: 'mail.example.com');
    }

    public function testTheKeyAndTheBaseUrlComeFromTheEnvironment(): void
    {
        putenv('SENDLINE_API_KEY=' . self::KEY);
        putenv('SENDLINE_BASE_URL=' . self::$server->url . '/api');
        try {
            self::$server->respond([['body' => self::contact()]]);
            (new Sendline())->contacts->get('ct_1');
            $this->assertSame('Bearer ' . self::KEY, self::$server->requests()[0]['headers']['authorization']);
            putenv('SENDLINE_BASE_URL');
            $this->assertSame('http://localhost:3000/api/v1', (new Sendline())->baseUrl());
        } finally {
            putenv('SENDLINE_API_KEY');
            putenv('SENDLINE_BASE_URL');
        }
    }

    public function testNoKeyIsAConfigurationErrorAtConstruction(): void
    {
        foreach ([null, '', '  '] as $key) {
            try {
                new Sendline(api_key: $key, base_url: self::$server->url);
                $this->fail('no ConfigurationError');
            } catch (Errors\ConfigurationError $e) {
                $this->assertStringContainsString('SENDLINE_API_KEY', $e->getMessage());
            }
        }
    }

    public function testTheKeyIsInNoDump(): void
    {
        $client = self::client();
        ob_start();
        var_dump($client, $client->contacts);
        print_r($client);
        print_r($client->contacts);
        var_export($client);
        var_export($client->contacts);
        echo json_encode($client);
        $dumped = ob_get_clean();
        try {
            serialize($client);
            $this->fail('a client was serialized');
        } catch (LogicException) {
        }
        $this->assertStringContainsString('[hidden]', $dumped);
        $this->assertStringNotContainsString(self::KEY, $dumped);
        self::$server->respond([self::problem(401, 'unauthorized')]);
        try {
            $client->contacts->get('ct_1');
        } catch (Errors\AuthenticationError $e) {
            $this->assertStringNotContainsString(self::KEY, (string) $e . print_r($e, true));
        }
    }

    public function testDateTimesGoOutAsRfc3339(): void
    {
        $utc = new DateTimeZone('UTC');
        self::$server->respond([['body' => ['data' => [], 'next_cursor' => null, 'has_more' => false]], ['body' => ['data' => [], 'next_cursor' => null, 'has_more' => false]]]);
        iterator_to_array(self::client()->contacts->list(created_after: new DateTimeImmutable('2026-11-23 06:00:00', $utc), created_before: new DateTime('2026-11-23 08:00:00', new DateTimeZone('+02:00'))));
        iterator_to_array(self::client()->contacts->list(created_after: '2026-11-23T06:00:00Z'));
        [$native, $text] = self::$server->requests();
        parse_str(parse_url($native['uri'], PHP_URL_QUERY), $query);
        $this->assertSame('2026-11-23T06:00:00.000+00:00', $query['created_after']);
        $this->assertSame('2026-11-23T08:00:00.000+02:00', $query['created_before']);
        parse_str(parse_url($text['uri'], PHP_URL_QUERY), $query);
        $this->assertSame('2026-11-23T06:00:00Z', $query['created_after']);

        self::$server->respond([['body' => ['id' => 'cmp_1', 'name' => 'n', 'status' => 'scheduled']]]);
        self::client()->campaigns->schedule('cmp_1', scheduled_at: new DateTimeImmutable('2026-11-24 09:30:00', $utc));
        $this->assertSame(['scheduled_at' => '2026-11-24T09:30:00.000+00:00'], json_decode(self::$server->requests()[0]['body'], true));
    }

    public function testListsFollowTheCursorLazilyAcrossPages(): void
    {
        self::$server->respond([
            ['body' => ['data' => [self::contact('a@example.com'), self::contact('b@example.com')], 'next_cursor' => 'c2', 'has_more' => true]],
            ['body' => ['data' => [self::contact('c@example.com')], 'next_cursor' => null, 'has_more' => false]],
        ]);
        $list = self::client()->contacts->list(['tag' => 'vip', 'limit' => 2]);
        $this->assertSame([], self::$server->requests(), 'nothing is fetched before the iteration');
        $emails = [];
        foreach ($list as $contact) {
            $emails[] = $contact->getEmail();
            if (count($emails) === 1) {
                $this->assertCount(1, self::$server->requests(), 'the second page is fetched when the first is used up');
            }
        }
        $this->assertSame(['a@example.com', 'b@example.com', 'c@example.com'], $emails);
        [$first, $second] = self::$server->requests();
        $this->assertSame('/api/v1/contacts?limit=2&tag=vip', $first['uri']);
        $this->assertSame('/api/v1/contacts?limit=2&cursor=c2&tag=vip', $second['uri']);
    }

    public function testAnUnknownArgumentIsRefusedBeforeAnyRequest(): void
    {
        self::$server->respond([]);
        try {
            self::client()->contacts->create(email: 'ada@example.com', first_nam: 'Ada');
            $this->fail('no InvalidArgumentException');
        } catch (InvalidArgumentException $e) {
            $this->assertStringContainsString('first_nam', $e->getMessage());
        }
        $this->expectException(InvalidArgumentException::class);
        iterator_to_array(self::client()->contacts->list(tags: 'vip'));
    }

    public function testImportCsvStreamsAFileAsMultipartAndWaitPollsToTheEnd(): void
    {
        $path = tempnam(sys_get_temp_dir(), 'contacts') . '.csv';
        file_put_contents($path, "E-mail,first_name\nada@example.com,Ada\n");
        $import = ['id' => 'imp_1', 'mode' => 'upsert', 'total_rows' => 1, 'processed_rows' => 0, 'created' => 0, 'updated' => 0, 'skipped' => 0, 'failed' => 0, 'errors' => [], 'created_at' => '2026-11-23T06:00:00.000Z'];
        self::$server->respond([
            ['status' => 202, 'body' => ['status' => 'queued'] + $import],
            ['body' => ['status' => 'running'] + $import],
            ['body' => ['status' => 'completed', 'processed_rows' => 1, 'created' => 1] + $import],
        ]);
        $client = self::client();
        $started = $client->contacts->importCsv($path, mode: 'upsert', tags: ['a', 'b'], mapping: ['E-mail' => 'email']);
        $this->assertSame('queued', $started->getStatus());
        $done = $client->contactImports->wait('imp_1', interval: 0.05);
        unlink($path);
        $this->assertSame('completed', $done->getStatus());
        $this->assertSame(1, $done->getCreated());

        [$upload, $poll1, $poll2] = self::$server->requests();
        $this->assertSame('/api/v1/contacts/import', $upload['uri']);
        $this->assertMatchesRegularExpression('#^multipart/form-data; boundary=#', $upload['headers']['content-type']);
        $this->assertNotEmpty($upload['headers']['idempotency-key']);
        $this->assertStringContainsString("Content-Type: text/csv\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" . basename($path) . '"', $upload['body']);
        $this->assertStringContainsString("E-mail,first_name\nada@example.com,Ada\n", $upload['body']);
        $this->assertStringContainsString("name=\"mode\"\r\nContent-Length: 6\r\n\r\nupsert", $upload['body']);
        $this->assertStringContainsString("name=\"tags\"\r\nContent-Length: 3\r\n\r\na,b", $upload['body']);
        $this->assertStringContainsString("name=\"mapping\"\r\nContent-Length: 12\r\n\r\nE-mail:email", $upload['body']);
        $this->assertSame('/api/v1/contacts/import/imp_1', $poll1['uri']);
        $this->assertSame('GET', $poll2['method']);
    }

    public function testALargeFileIsStreamedNotReadIntoMemory(): void
    {
        $path = tempnam(sys_get_temp_dir(), 'contacts');
        $file = fopen($path, 'w');
        fwrite($file, "email\n");
        $row = str_repeat('x', 1000) . "@example.com\n";
        for ($i = 0; $i < 30_000; $i++) {
            fwrite($file, $row);
        }
        fclose($file);
        self::$server->respond([['status' => 202, 'body' => ['id' => 'imp_1', 'status' => 'queued', 'mode' => 'upsert', 'total_rows' => 30_000, 'processed_rows' => 0, 'created' => 0, 'updated' => 0, 'skipped' => 0, 'failed' => 0, 'errors' => [], 'created_at' => '2026-11-23T06:00:00.000Z']]]);
        $before = memory_get_peak_usage();
        try {
            self::client()->contacts->importCsv($path);
        } finally {
            $size = filesize($path);
            unlink($path);
        }
        $this->assertGreaterThan($size, self::$server->requests()[0]['size']);
        $this->assertLessThan(4 << 20, memory_get_peak_usage() - $before, "a $size-byte file took that much memory");
    }

    public function testImportCsvTakesTextAndStreamsAndRefusesAMissingFile(): void
    {
        $import = ['id' => 'imp_1', 'status' => 'queued', 'mode' => 'upsert', 'total_rows' => 1, 'processed_rows' => 0, 'created' => 0, 'updated' => 0, 'skipped' => 0, 'failed' => 0, 'errors' => [], 'created_at' => '2026-11-23T06:00:00.000Z'];
        self::$server->respond([['status' => 202, 'body' => $import], ['status' => 202, 'body' => $import]]);
        $client = self::client();
        $client->contacts->importCsv("email\ntext@example.com\n");
        $stream = fopen('php://memory', 'w+');
        fwrite($stream, "email\nstream@example.com\n");
        rewind($stream);
        $client->contacts->importCsv($stream);
        [$text, $fromStream] = self::$server->requests();
        $this->assertStringContainsString("email\ntext@example.com\n", $text['body']);
        $this->assertStringContainsString("email\nstream@example.com\n", $fromStream['body']);
        try {
            $client->contacts->importCsv('/no/such/file.csv');
            $this->fail('no ValidationError');
        } catch (\Sendline\Errors\ValidationError $e) {
            $this->assertNull($e->status);
            $this->assertSame('validation_failed', $e->code);
            $this->assertSame('file', $e->errors[0]->getPointer());
            $this->assertStringContainsString('/no/such/file.csv: No such file or directory', $e->getMessage());
        }
    }

    public function testEmailsSendTakesPlainAndNamedAddressesMixedAndSendsThemAsGiven(): void
    {
        self::$server->respond([['status' => 202, 'body' => ['data' => [['id' => 'em_1', 'email' => 'ada@example.com', 'kind' => 'to', 'status' => 'queued', 'reason' => null]]]]]);
        $sent = self::client()->emails->send(
            from: 'receipts@shop.example',
            to: ['ada@example.com', ['email' => 'bob@example.com', 'name' => 'Bob'], new \Sendline\Model\EmailNamedAddress(['email' => 'cat@example.com'])],
            cc: [['email' => 'dan@example.com'], 'eve@example.com'],
            bcc: ['fay@example.com'],
            subject: 'Receipt',
            text: 'Thanks!',
        );
        $this->assertSame('em_1', $sent->getData()[0]->getId());
        $body = json_decode(self::$server->requests()[0]['body'], true);
        $this->assertSame('receipts@shop.example', $body['from']);
        $this->assertSame(['ada@example.com', ['email' => 'bob@example.com', 'name' => 'Bob'], ['email' => 'cat@example.com']], $body['to']);
        $this->assertSame([['email' => 'dan@example.com'], 'eve@example.com'], $body['cc']);
        $this->assertSame(['fay@example.com'], $body['bcc']);
    }

    public function testTheGeneratedRequestModelKeepsBothFormsWhenReadFromJson(): void
    {
        $json = '{"from":"receipts@shop.example","to":["ada@example.com",{"email":"bob@example.com","name":"Bob"}],"subject":"Hi","text":"x"}';
        $request = \Sendline\ObjectSerializer::deserialize(json_decode($json), '\Sendline\Model\EmailSendRequest');
        $this->assertSame(
            ['from' => 'receipts@shop.example', 'to' => ['ada@example.com', ['email' => 'bob@example.com', 'name' => 'Bob']], 'subject' => 'Hi', 'text' => 'x', 'track_opens' => false, 'track_clicks' => false],
            json_decode(json_encode(\Sendline\ObjectSerializer::sanitizeForSerialization($request)), true),
        );
    }
}
