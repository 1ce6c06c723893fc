#!/usr/bin/env python3
"""A QUIC perf peer on aioquic, written from draft-banks-quic-performance-00, independent of netbench.

ALPN "perf". On each client-initiated bidirectional stream the client sends the number of bytes it
wants back as an 8-byte big-endian integer, then its upload, then FIN; the server reads the size,
drains the upload, and answers with that many bytes and FIN.

  aioquic_perf.py server --listen 127.0.0.1:0 --certificate CERT --private-key KEY
      prints "listening 127.0.0.1:PORT", then one JSON line per answered stream:
      {"stream": ID, "requested": N, "uploaded": M}
  aioquic_perf.py client HOST:PORT --ca-certs CA [--server-name NAME] --stream DOWNLOAD:UPLOAD ...
      opens one stream per --stream, all at once; prints one JSON line per stream
      {"stream": ID, "requested": N, "received": R, "uploaded": M} and exits 1 if any R != N.
"""
import argparse
import asyncio
import json
import ssl
import sys

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, StreamDataReceived, StreamReset

ALPN = "perf"
CHUNK = 64 * 1024


def is_client_bidi(stream_id):
    return stream_id % 4 == 0


class PerfServer(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.header = {}
        self.uploaded = {}

    def quic_event_received(self, event):
        if not isinstance(event, StreamDataReceived):
            return
        sid = event.stream_id
        head = self.header.setdefault(sid, b"")
        data = event.data
        if is_client_bidi(sid) and len(head) < 8:
            take = 8 - len(head)
            head += data[:take]
            self.header[sid] = head
            data = data[take:]
        self.uploaded[sid] = self.uploaded.get(sid, 0) + len(data)
        if not event.end_stream or not is_client_bidi(sid):
            return
        if len(head) < 8:
            self._quic.reset_stream(sid, 1)
        else:
            size = int.from_bytes(head, "big")
            while size > 0:
                n = min(size, CHUNK)
                size -= n
                self._quic.send_stream_data(sid, bytes(n), end_stream=size == 0)
            if int.from_bytes(head, "big") == 0:
                self._quic.send_stream_data(sid, b"", end_stream=True)
            print(json.dumps({"stream": sid, "requested": int.from_bytes(head, "big"),
                              "uploaded": self.uploaded[sid]}), flush=True)
        self.transmit()


class PerfClient(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.received = {}
        self.done = {}
        self.failed = None

    def request(self, download, upload):
        sid = self._quic.get_next_available_stream_id()
        self.received[sid] = 0
        self.done[sid] = self._loop.create_future()
        self._quic.send_stream_data(sid, download.to_bytes(8, "big"), end_stream=upload == 0)
        left = upload
        while left > 0:
            n = min(left, CHUNK)
            left -= n
            self._quic.send_stream_data(sid, bytes(n), end_stream=left == 0)
        self.transmit()
        return sid

    def quic_event_received(self, event):
        if isinstance(event, StreamDataReceived) and event.stream_id in self.received:
            self.received[event.stream_id] += len(event.data)
            if event.end_stream and not self.done[event.stream_id].done():
                self.done[event.stream_id].set_result(True)
        elif isinstance(event, StreamReset) and event.stream_id in self.done:
            if not self.done[event.stream_id].done():
                self.done[event.stream_id].set_result(False)
        elif isinstance(event, ConnectionTerminated):
            for f in self.done.values():
                if not f.done():
                    f.set_result(False)


def endpoint(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


async def run_server(args):
    config = QuicConfiguration(is_client=False, alpn_protocols=[ALPN], max_data=16 << 20,
                               max_stream_data=8 << 20)
    config.load_cert_chain(args.certificate, args.private_key)
    host, port = endpoint(args.listen)
    server = await serve(host, port, configuration=config, create_protocol=PerfServer)
    bound = server._transport.get_extra_info("sockname")
    print(f"listening {bound[0]}:{bound[1]}", flush=True)
    await asyncio.Future()


async def run_client(args):
    config = QuicConfiguration(is_client=True, alpn_protocols=[ALPN], max_data=16 << 20,
                               max_stream_data=8 << 20)
    config.load_verify_locations(args.ca_certs)
    config.verify_mode = ssl.CERT_REQUIRED
    host, port = endpoint(args.server)
    config.server_name = args.server_name or host
    sizes = [tuple(int(x) for x in s.split(":")) for s in args.stream]
    ok = True
    async with connect(host, port, configuration=config, create_protocol=PerfClient) as client:
        sids = [client.request(d, u) for d, u in sizes]
        await asyncio.wait_for(asyncio.gather(*(client.done[s] for s in sids)), args.timeout)
        for sid, (d, u) in zip(sids, sizes):
            got = client.received[sid]
            print(json.dumps({"stream": sid, "requested": d, "received": got, "uploaded": u}), flush=True)
            ok = ok and got == d and client.done[sid].result()
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("server")
    s.add_argument("--listen", default="127.0.0.1:0")
    s.add_argument("--certificate", required=True)
    s.add_argument("--private-key", required=True)
    c = sub.add_parser("client")
    c.add_argument("server")
    c.add_argument("--ca-certs", required=True)
    c.add_argument("--server-name")
    c.add_argument("--stream", action="append", required=True, help="DOWNLOAD:UPLOAD bytes")
    c.add_argument("--timeout", type=float, default=60)
    args = p.parse_args()
    if args.mode == "server":
        asyncio.run(run_server(args))
        return 0
    return asyncio.run(run_client(args))


if __name__ == "__main__":
    sys.exit(main())
