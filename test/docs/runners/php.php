<?php
// Runs the reference's PHP samples (a JSON list of {id, source}), each in a scope of its own in
// this one process, with the SDK autoloaded from sdk/php/lib; prints one JSON line per sample:
// id, ok, output, error. A warning or notice fails the sample. Run by test/docs/samples.test.ts.
require __DIR__ . '/../../../sdk/php/contract-tests/bootstrap.php';

set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $severity, $file, $line);
});

$samples = json_decode(file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
foreach ($samples as $sample) {
    ob_start();
    $started = hrtime(true);
    try {
        (static function (string $source): void {
            eval($source);
        })($sample['source']);
        $result = ['id' => $sample['id'], 'ok' => true];
    } catch (Throwable $e) {
        $result = ['id' => $sample['id'], 'ok' => false, 'error' => get_class($e) . ': ' . $e->getMessage()];
    }
    $result['output'] = ob_get_clean();
    $result['ms'] = intdiv(hrtime(true) - $started, 1_000_000);
    fwrite(STDOUT, json_encode($result, JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
}
