#!/usr/bin/env python3
"""A fast local webhook for delivery benchmarks (Tests/Scale/deliver_memory.sh): answers every HTTP/1.1 POST with
200 and an empty body at once, on keep-alive connections, and reads nothing of the body. Binds 127.0.0.1 on PORT (0
by default: a free port), prints `port N pid P` when it listens (P: its own process id, to stop it by, as a
launcher such as pyenv's shim may stand between), and on SIGTERM prints `received N requests` and exits.
Standard library only.

    PORT=0 python3 Tests/Scale/fast_receiver.py
"""
import asyncio
import os
import signal

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


class Receiver(asyncio.Protocol):
    """One connection: splits the byte stream into requests by their Content-Length and answers each."""

    count = 0

    def connection_made(self, transport):
        self.transport = transport
        self.buffer = bytearray()

    def data_received(self, data):
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            length = 0
            for line in bytes(self.buffer[:end]).split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            total = end + 4 + length
            if len(self.buffer) < total:
                return
            del self.buffer[:total]
            Receiver.count += 1
            self.transport.write(ANSWER)


async def main():
    # A process started by a test runner may inherit a signal mask that blocks SIGTERM.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Receiver, "127.0.0.1", int(os.environ.get("PORT", "0")))
    print(f"port {server.sockets[0].getsockname()[1]} pid {os.getpid()}", flush=True)
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    loop.add_signal_handler(signal.SIGINT, stop.set_result, None)
    await stop
    server.close()
    print(f"received {Receiver.count} requests", flush=True)


asyncio.run(main())
