<?php
// Test-only autoloading: Guzzle and PSR-7 from Debian's packages, the SDK by PSR-4 from lib/.
// (Applications install the SDK with Composer, which does this itself.)
require_once '/usr/share/php/Psr/Http/Message/autoload.php';
require_once '/usr/share/php/GuzzleHttp/Promise/autoload.php';
require_once '/usr/share/php/GuzzleHttp/Psr7/autoload.php';
require_once '/usr/share/php/GuzzleHttp/autoload.php';

spl_autoload_register(function (string $class): void {
    if (str_starts_with($class, 'Sendline\\')) {
        $file = __DIR__ . '/../lib/' . str_replace('\\', '/', substr($class, strlen('Sendline\\'))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
