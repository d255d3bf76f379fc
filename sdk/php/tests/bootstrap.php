<?php
require __DIR__ . '/../contract-tests/bootstrap.php';
require __DIR__ . '/LoopbackServer.php';
