<?php
// Hand-written; kept across regeneration.

namespace Sendline\Resources;

use GuzzleHttp\Psr7\MultipartStream;
use GuzzleHttp\Psr7\Request;
use GuzzleHttp\Psr7\Utils;
use Psr\Http\Message\StreamInterface;
use Sendline\Api\ContactsApi;
use Sendline\Client\Paginator;
use Sendline\Client\Resource;
use Sendline\Client\Transport;
use Sendline\Errors\ValidationError;
use Sendline\Model\Contact;
use Sendline\Model\ContactActivityPage;
use Sendline\Model\ContactBulkRequest;
use Sendline\Model\ContactBulkResult;
use Sendline\Model\ContactCount;
use Sendline\Model\ContactCreate;
use Sendline\Model\ContactImport;
use Sendline\Model\ContactPage;
use Sendline\Model\ContactReplace;
use Sendline\Model\ContactUpdate;
use Sendline\Model\ContactDataExport;
use Sendline\Model\ContactErasure;

/** Contacts: create, read, change, delete and list contacts; `importCsv` uploads a CSV file. */
class Contacts extends Resource
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, ContactsApi::class);
    }

    /**
     * Every contact, page by page (`status`, `tag`, `email`, `q`, `created_after`, `created_before`, `sort`, `limit`).
     *
     * @return Paginator<\Sendline\Model\Contact>
     */
    public function list(array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('callListRequest', ContactPage::class, [], self::merge($params, $named));
    }

    /** How many contacts the filters of `list` match: `count`, and `exact` (false: the planner's estimate). */
    public function count(array $params = [], mixed ...$named): ContactCount
    {
        return $this->call('countRequest', ContactCount::class, [], self::merge($params, $named));
    }

    /** One `action` (`tag`, `untag`, `add_to_list`, `remove_from_list`, `delete`) on up to 10,000 `contact_ids` or on every contact a `filter` matches. */
    public function bulk(array $params = [], mixed ...$named): ContactBulkResult
    {
        return $this->call('bulkRequest', ContactBulkResult::class, [], self::merge($params, $named), ContactBulkRequest::class);
    }

    /** Creates a contact (`email`, `first_name`, `last_name`, `tags`, `fields`, `status` …); a taken address throws ConflictError with `existingId`. */
    public function create(array $params = [], mixed ...$named): Contact
    {
        return $this->call('createRequest', Contact::class, [], self::merge($params, $named), ContactCreate::class);
    }

    public function get(?string $id, mixed ...$options): Contact
    {
        return $this->call('getRequest', Contact::class, ['id' => $id], self::merge([], $options));
    }

    /** Changes the fields given, leaves the others. */
    public function update(?string $id, array $params = [], mixed ...$named): Contact
    {
        return $this->call('updateRequest', Contact::class, ['id' => $id], self::merge($params, $named), ContactUpdate::class);
    }

    public function replace(?string $id, array $params = [], mixed ...$named): Contact
    {
        return $this->call('replaceRequest', Contact::class, ['id' => $id], self::merge($params, $named), ContactReplace::class);
    }

    public function delete(?string $id, mixed ...$options): void
    {
        $this->call('deleteRequest', null, ['id' => $id], self::merge([], $options));
    }

    /**
     * The contact's activity, newest first.
     *
     * @return Paginator<\Sendline\Model\ContactActivity>
     */
    public function activity(?string $id, array $params = [], mixed ...$named): Paginator
    {
        return $this->paginate('activityRequest', ContactActivityPage::class, ['id' => $id], self::merge($params, $named));
    }

    /**
     * Imports a CSV file, sent as multipart and streamed (a file of any size is never read
     * into memory whole). `$source` is, in this order: a PSR-7 stream, an open stream resource,
     * an \SplFileInfo, CSV text (a string holding a line break), or else a path to a file.
     * `$tags` are added to every row; `$mapping` renames columns (`['E-mail' => 'email']`).
     * The import runs on the server: `$client->contactImports->wait($import->getId())`.
     *
     * @param StreamInterface|resource|\SplFileInfo|string $source
     * @param list<string>|string|null $tags
     * @param array<string, string>|string|null $mapping
     */
    public function importCsv(mixed $source, ?string $mode = null, array|string|null $tags = null, array|string|null $mapping = null, mixed ...$options): ContactImport
    {
        [$unknown, $options] = self::options(self::merge([], $options));
        if ($unknown !== []) {
            throw new \InvalidArgumentException(static::class . ": unknown argument '" . implode("', '", array_keys($unknown)) . "'");
        }
        if (is_array($mapping)) {
            $mapping = implode(',', array_map(fn ($from, $to) => "$from:$to", array_keys($mapping), $mapping));
        }
        // The options go as parts of the multipart body, before the file, as the contract has them.
        $fields = array_filter(['mode' => $mode, 'tags' => is_array($tags) ? implode(',', $tags) : $tags, 'mapping' => $mapping], fn ($v) => $v !== null);
        $parts = array_map(fn ($name, $value) => ['name' => $name, 'contents' => $value], array_keys($fields), $fields);
        [$file, $filename, $opened] = self::csvStream($source);
        try {
            $body = new MultipartStream([...$parts, ['name' => 'file', 'contents' => $file, 'filename' => $filename, 'headers' => ['Content-Type' => 'text/csv']]]);
            $request = new Request(
                'POST',
                $this->transport->baseUrl . '/contacts/import',
                ['Content-Type' => 'multipart/form-data; boundary=' . $body->getBoundary(), 'Accept' => 'application/json, application/problem+json'],
                $body,
            );
            return $this->transport->decode($this->transport->send($request, $options), ContactImport::class);
        } finally {
            if ($opened) {
                $file->close();
            }
        }
    }

    /** @return array{0: StreamInterface, 1: string, 2: bool} the file, its name, whether it was opened here */
    private static function csvStream(mixed $source): array
    {
        if ($source instanceof StreamInterface) {
            return [$source, 'contacts.csv', false];
        }
        if (is_resource($source)) {
            $path = stream_get_meta_data($source)['uri'] ?? '';
            return [Utils::streamFor($source), is_file($path) ? basename($path) : 'contacts.csv', false];
        }
        if ($source instanceof \SplFileInfo) {
            $source = $source->getPathname();
        } elseif (!is_string($source)) {
            throw new \InvalidArgumentException('importCsv() takes a path, CSV text, a stream resource or a PSR-7 stream, not ' . get_debug_type($source));
        } elseif (str_contains($source, "\n") || str_contains($source, "\r")) {
            return [Utils::streamFor($source), 'contacts.csv', true];
        }
        $unreadable = match (true) {
            !file_exists($source) => 'No such file or directory',
            is_dir($source) => 'Is a directory',
            !is_readable($source) => 'Permission denied',
            default => null,
        };
        $file = $unreadable === null ? @fopen($source, 'rb') : false;
        if ($file === false) {
            // As every Sendline SDK says it: a ValidationError at `file`, naming the path and why.
            $reason = $unreadable ?? (error_get_last()['message'] ?? 'cannot be opened');
            throw ValidationError::local('validation_failed', 'file', "cannot read the CSV file $source: $reason");
        }
        return [Utils::streamFor($file), basename($source), true];
    }

    /** Everything stored about one contact (GDPR access). */
    public function export(?string $id, mixed ...$options): ContactDataExport
    {
        return $this->call('exportRequest', ContactDataExport::class, ['id' => $id], self::merge([], $options));
    }

    /** Erases the person's personal data everywhere (GDPR erasure); the address stays suppressed as a hash. */
    public function erase(?string $id, mixed ...$options): ContactErasure
    {
        return $this->call('eraseRequest', ContactErasure::class, ['id' => $id], self::merge([], $options));
    }
}
