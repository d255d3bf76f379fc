<?php
// A real HTTP server on 127.0.0.1 (PHP's built-in server running router.php) whose answers
// the test scripts, one per request, and which records what it received.

final class LoopbackServer
{
    public readonly string $url;
    private readonly string $dir;
    /** @var resource */
    private $process;

    public function __construct()
    {
        $this->dir = sys_get_temp_dir() . '/sendline-php-unit-' . bin2hex(random_bytes(4));
        mkdir($this->dir, 0o700);
        $port = self::freePort();
        $this->process = proc_open(
            [PHP_BINARY, '-d', 'enable_post_data_reading=0', '-S', "127.0.0.1:$port", __DIR__ . '/router.php'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
            null,
            ['SENDLINE_TEST_DIR' => $this->dir] + getenv(),
        );
        $this->url = "http://127.0.0.1:$port";
        $deadline = microtime(true) + 10;
        while (!($socket = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $error, 0.2))) {
            if (microtime(true) > $deadline) {
                throw new RuntimeException("the loopback server did not start: $error");
            }
            usleep(20_000);
        }
        fclose($socket);
    }

    /** A port nothing listens on. */
    public static function freePort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($socket, false), ':'), 1);
        fclose($socket);
        return $port;
    }

    /** @param list<array{status?: int, headers?: array<string, string>, body?: mixed, sleep?: float}> $responses */
    public function respond(array $responses): void
    {
        file_put_contents("$this->dir/queue.json", json_encode($responses));
        @unlink("$this->dir/requests.jsonl");
    }

    /** @return list<array{method: string, uri: string, headers: array<string, string>, body: string}> */
    public function requests(): array
    {
        $lines = @file("$this->dir/requests.jsonl", FILE_IGNORE_NEW_LINES) ?: [];
        return array_map(fn ($line) => json_decode($line, true), $lines);
    }

    public function stop(): void
    {
        proc_terminate($this->process);
        proc_close($this->process);
        array_map('unlink', glob("$this->dir/*"));
        rmdir($this->dir);
    }
}
