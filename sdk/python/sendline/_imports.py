"""CSV imports as multipart uploads, streamed from the source (a 200 MB file is never read into
memory). Hand-written; kept across regeneration: the generated operation sends JSON only."""
from __future__ import annotations

import errno
import io
import os
import uuid
from typing import IO, TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Tuple, Union, cast

import urllib3

from sendline._errors import local_validation_error
from sendline.models.contact_import import ContactImport
from sendline.rest import RESTResponse

if TYPE_CHECKING:
    from sendline._client import Sendline

CsvSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes], IO[str]]
CHUNK = 256 * 1024

Chunks = Callable[[], Iterator[bytes]]


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")


def _readable_size(path: str) -> int:
    """The size of the file at `path`, once it is known to open for reading; a `ValidationError`
    (pointer `file`) naming the path and why otherwise, as every Sendline SDK raises it."""
    try:
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        with open(path, "rb") as file:
            return os.fstat(file.fileno()).st_size
    except OSError as error:
        raise local_validation_error("validation_failed", [("file", f"cannot read the CSV file {path}: {error.strerror or error}")]) from error


def _open(source: CsvSource) -> Tuple[Chunks, Optional[int], Callable[[], bool], str]:
    """The source's bytes (as a function that starts reading), its size when known, a way to be
    read again from the start for a retry (False: it cannot), and a file name."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source and "\r" not in source):
        path = os.fspath(source)
        file_size = _readable_size(path)

        def from_file() -> Iterator[bytes]:
            with open(path, "rb") as file:
                while True:
                    chunk = file.read(CHUNK)
                    if not chunk:
                        return
                    yield chunk

        return from_file, file_size, lambda: True, os.path.basename(path)
    if isinstance(source, str):
        source = source.encode("utf-8")
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return (lambda: iter((data,))), len(data), lambda: True, "contacts.csv"
    if not callable(getattr(source, "read", None)):
        raise TypeError(f"import_csv takes a path, CSV text, bytes or a file opened for reading, not {type(source).__name__}")
    stream: IO[Any] = source
    start: Optional[int] = stream.tell() if stream.seekable() else None
    size: Optional[int] = None
    if start is not None and not isinstance(stream, io.TextIOBase):
        size = stream.seek(0, os.SEEK_END) - start
        stream.seek(start)

    def from_stream() -> Iterator[bytes]:
        while True:
            chunk = stream.read(CHUNK)
            if not chunk:
                return
            yield chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)

    def rewind() -> bool:
        if start is None:
            return False
        stream.seek(start)
        return True

    return from_stream, size, rewind, os.path.basename(str(getattr(stream, "name", ""))) or "contacts.csv"


def send_csv(
    client: "Sendline",
    source: CsvSource,
    *,
    mode: Optional[str],
    tags: Optional[List[str]],
    mapping: Optional[Dict[str, str]],
    idempotency_key: Optional[str],
    timeout: Optional[float],
    max_retries: Optional[int] = None,
) -> ContactImport:
    chunks, size, rewind, filename = _open(source)
    boundary = f"sendline-{uuid.uuid4().hex}"
    fields: Dict[str, str] = {}
    if mode is not None:
        fields["mode"] = str(getattr(mode, "value", mode))
    if tags:
        fields["tags"] = ",".join(tags)
    if mapping:
        fields["mapping"] = ",".join(f"{source_column}:{target}" for source_column, target in mapping.items())
    # The options before the file: the server reads them either way, but a reader of the stream sees them first.
    head = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode("utf-8")
        for name, value in fields.items()
    ) + (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{_quoted(filename)}"\r\n'
        "Content-Type: text/csv\r\n\r\n"
    ).encode("utf-8")
    tail = f"\r\n--{boundary}--\r\n".encode("ascii")

    def body() -> Iterator[bytes]:
        yield head
        yield from chunks()
        yield tail

    api_client = client.api_client

    def send(headers: Dict[str, str], limit: float) -> ContactImport:
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
        headers["Accept"] = "application/json, application/problem+json"
        if size is not None:
            headers["Content-Length"] = str(len(head) + size + len(tail))
        _, url, request_headers, _, _ = api_client.param_serialize(
            "POST", "/contacts/import", header_params=headers, auth_settings=["ApiKeyAuth", "BearerAuth"]
        )
        api_client.remember_url(url)
        response = api_client.rest_client.pool_manager.request(
            "POST",
            url,
            body=body(),
            headers=request_headers,
            timeout=urllib3.Timeout(total=limit),
            retries=False,
            chunked=size is None,
            preload_content=False,
        )
        answer = RESTResponse(response)
        answer.read()  # type: ignore[no-untyped-call]
        return cast(ContactImport, api_client.response_deserialize(answer, {"202": "ContactImport"}).data)

    return client._request("POST", send, idempotency_key=idempotency_key, timeout=timeout, max_retries=max_retries, rewind=rewind)
