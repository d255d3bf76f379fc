"""An authoritative DNS server for tests, on loopback (UDP and TCP).

Serves the records of a JSON zone file, read again on every query so that a test changes them by
rewriting the file: {"records": [{"name": "...", "type": "TXT" | "CNAME" | "A" | "MX" | "SERVFAIL", "value": "..."}]}.
A name with a SERVFAIL record answers SERVFAIL; an unknown name NXDOMAIN; a known name without a
record of the type asked NOERROR with no answer. TXT values longer than 255 bytes are served split
into strings of 255, as DNS hosts publish 2048-bit DKIM keys.

    python server.py ZONE_FILE PORT   (0: a free port; prints "listening on PORT" once ready)
"""

import json
import sys
import threading

from dnslib import CNAME, MX, QTYPE, RCODE, RR, TXT, A
from dnslib.server import BaseResolver, DNSServer


class ZoneResolver(BaseResolver):
    def __init__(self, zone_file):
        self.zone_file = zone_file

    def records(self):
        try:
            with open(self.zone_file, encoding="utf-8") as f:
                return json.load(f).get("records", [])
        except FileNotFoundError:
            return []

    def resolve(self, request, handler):
        reply = request.reply()
        qname = str(request.q.qname).rstrip(".").lower()
        qtype = QTYPE[request.q.qtype]
        at_name = [r for r in self.records() if r["name"].rstrip(".").lower() == qname]
        if any(r["type"] == "SERVFAIL" for r in at_name):
            reply.header.rcode = RCODE.SERVFAIL
            return reply
        if not at_name:
            reply.header.rcode = RCODE.NXDOMAIN
            return reply
        for record in at_name:
            rtype = record["type"]
            if rtype == "CNAME" and qtype != "CNAME":
                # A CNAME answers every type at its name.
                reply.add_answer(RR(qname, QTYPE.CNAME, rdata=CNAME(record["value"]), ttl=60))
            elif rtype != qtype:
                continue
            elif rtype == "TXT":
                data = record["value"].encode("utf-8")
                chunks = [data[i : i + 255] for i in range(0, len(data), 255)] or [b""]
                reply.add_answer(RR(qname, QTYPE.TXT, rdata=TXT(chunks), ttl=60))
            elif rtype == "CNAME":
                reply.add_answer(RR(qname, QTYPE.CNAME, rdata=CNAME(record["value"]), ttl=60))
            elif rtype == "A":
                reply.add_answer(RR(qname, QTYPE.A, rdata=A(record["value"]), ttl=60))
            elif rtype == "MX":
                reply.add_answer(RR(qname, QTYPE.MX, rdata=MX(record["value"]), ttl=60))
        return reply


class QuietLogger:
    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def bind_pair(resolver, port):
    """Binds UDP and TCP on one port. A free UDP port may be taken for TCP by another process's
    socket, so with port 0 another free port is tried."""
    for _ in range(50):
        udp = DNSServer(resolver, port=port, address="127.0.0.1", logger=QuietLogger())
        try:
            tcp = DNSServer(
                resolver, port=udp.server.server_address[1], address="127.0.0.1", tcp=True, logger=QuietLogger()
            )
            return udp, tcp
        except OSError:
            udp.server.server_close()
            if port != 0:
                raise
    raise OSError("no port free for both UDP and TCP")


def main():
    zone_file, port = sys.argv[1], int(sys.argv[2])
    resolver = ZoneResolver(zone_file)
    udp, tcp = bind_pair(resolver, port)
    port = udp.server.server_address[1]
    udp.start_thread()
    tcp.start_thread()
    print(f"listening on {port}", flush=True)
    # Ends when the test closes stdin (or the process is killed).
    sys.stdin.read()
    udp.stop()
    tcp.stop()


if __name__ == "__main__":
    threading.excepthook = lambda args: None
    main()
