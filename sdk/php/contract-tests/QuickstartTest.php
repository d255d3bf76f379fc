<?php
// Runs the quick-start of README.md, as written, against the live server, so it cannot rot.
// Its `vendor/autoload.php` is the tests' bootstrap here; test/install/php-sdk.test.ts runs it
// again from a Composer install.

use PHPUnit\Framework\TestCase;

final class QuickstartTest extends TestCase
{
    public function testReadmeQuickstartRuns(): void
    {
        preg_match('/```php\n(.*?)```/s', file_get_contents(__DIR__ . '/../README.md'), $match);
        $dir = sys_get_temp_dir() . '/sendline-quickstart-' . bin2hex(random_bytes(4));
        mkdir("$dir/vendor", 0o700, true);
        file_put_contents("$dir/vendor/autoload.php", "<?php require '" . __DIR__ . "/bootstrap.php';\n");
        file_put_contents("$dir/quickstart.php", $match[1]);
        exec('php ' . escapeshellarg("$dir/quickstart.php") . ' 2>&1', $output, $code);
        array_map('unlink', ["$dir/vendor/autoload.php", "$dir/quickstart.php"]);
        rmdir("$dir/vendor");
        rmdir($dir);
        $output = implode("\n", $output) . "\n";
        $this->assertSame(0, $code, $output);
        $this->assertMatchesRegularExpression('/^contact_exists, the existing contact is ct_\w+\nada@example.com\nimport completed: 1 created\nsent \d+, unique opens \d+\n404 not_found\nwebhook.test\n$/', $output);
    }
}
