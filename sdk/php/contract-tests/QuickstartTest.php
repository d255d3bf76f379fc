<?php
// Runs the quick-start of README.md against the live server, so it cannot rot.

use PHPUnit\Framework\TestCase;

final class QuickstartTest extends TestCase
{
    public function testReadmeQuickstartRuns(): void
    {
        preg_match('/```php\n(.*?)```/s', file_get_contents(__DIR__ . '/../README.md'), $match);
        $file = tempnam(sys_get_temp_dir(), 'quickstart') . '.php';
        file_put_contents($file, "<?php\n" . $match[1]);
        $this->expectOutputRegex('/sent \d+, unique opens \d+\n404 not_found\nwebhook.test\n/');
        require $file;
    }
}
