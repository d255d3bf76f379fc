<?php
// The scripted loopback server of the unit tests (`php -S`): answers each request with the next
// response queued in $SENDLINE_TEST_DIR/queue.json and records the request in requests.jsonl.

$dir = getenv('SENDLINE_TEST_DIR');
$lock = fopen("$dir/lock", 'c');
flock($lock, LOCK_EX);
$queue = json_decode((string) @file_get_contents("$dir/queue.json"), true) ?: [];
$response = array_shift($queue) ?? ['status' => 599, 'body' => 'no scripted response'];
file_put_contents("$dir/queue.json", json_encode($queue));
file_put_contents("$dir/requests.jsonl", json_encode([
    'method' => $_SERVER['REQUEST_METHOD'],
    'uri' => $_SERVER['REQUEST_URI'],
    'headers' => array_change_key_case(getallheaders(), CASE_LOWER),
    'body' => strlen($body = file_get_contents('php://input')) > 1 << 20 ? '' : $body,
    'size' => strlen($body),
]) . "\n", FILE_APPEND);
flock($lock, LOCK_UN);

if (isset($response['sleep'])) {
    usleep((int) ($response['sleep'] * 1_000_000));
}
http_response_code($response['status'] ?? 200);
foreach ($response['headers'] ?? [] as $name => $value) {
    header("$name: $value");
}
$body = $response['body'] ?? null;
if (is_array($body)) {
    header('Content-Type: ' . (($response['status'] ?? 200) >= 400 ? 'application/problem+json' : 'application/json'));
    $body = json_encode($body);
}
echo $body ?? '';
