"""Verifies a message's DKIM signature with dkimpy, looking the key up in the test DNS server.

    python dkim_verify.py HOST:PORT < message    (prints "pass d=… s=…" or "fail …"; exits 0 or 1)
"""

import re
import sys

import dkim
from dnslib import DNSRecord, QTYPE


def dns_lookup(server):
    host, port = server.rsplit(":", 1)

    def lookup(name, timeout=5):
        name = name.decode() if isinstance(name, bytes) else name
        answer = DNSRecord.parse(DNSRecord.question(name.rstrip("."), "TXT").send(host, int(port), tcp=True, timeout=timeout))
        values = [b"".join(rr.rdata.data) for rr in answer.rr if rr.rtype == QTYPE.TXT]
        return values[0] if values else None

    return lookup


def main():
    message = sys.stdin.buffer.read()
    ok = dkim.verify(message, dnsfunc=dns_lookup(sys.argv[1]))
    signature = re.search(rb"^DKIM-Signature:(.*?)(?=^\S)", message, re.S | re.M | re.I)
    tags = dict(re.findall(r"\b([ds])=([^;\s]+)", signature.group(1).decode()) if signature else [])
    print(f"{'pass' if ok else 'fail'} d={tags.get('d', '')} s={tags.get('s', '')}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
