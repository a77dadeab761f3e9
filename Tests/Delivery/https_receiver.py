#!/usr/bin/env python3
"""A webhook receiver over HTTPS for the HTTPS delivery checks (docs/delivery.md, https_check.sh, HTTPSDeliveryTests).

    python3 https_receiver.py CERT.pem KEY.pem BODIES

Binds 127.0.0.1 on a free port, prints the port on the first line of standard output, and answers every POST with
200 after appending its body, as received, and a newline to BODIES (so BODIES equals `simctl run --format jsonl`'s
output when every notification is delivered once, in order). Python 3 standard library only; SIGTERM ends it.
With HOLD_SECONDS=N in the environment, each POST is answered only after N seconds (a slow webhook).
"""

import http.server
import os
import ssl
import sys
import threading
import time


def main(cert, key, bodies_path):
    lock = threading.Lock()
    bodies = open(bodies_path, "ab")
    hold = float(os.environ.get("HOLD_SECONDS", "0"))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            with lock:
                bodies.write(body + b"\n")
                bodies.flush()
            if hold:
                time.sleep(hold)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # a client that refuses the certificate ends the handshake: expected in the untrusted check

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    server = Server(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
