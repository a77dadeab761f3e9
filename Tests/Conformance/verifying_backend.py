# A webhook that verifies what simctl sends exactly as it verifies what Apple sends: Apple's SignedDataVerifier with
# the root of `simctl certs export simctl-ca`, the environment, the bundle id and the app Apple id.
# Run: python verifying_backend.py PORT [Sandbox|Production]
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

root = open("simctl-ca/root.der", "rb").read()
environment = Environment(sys.argv[2] if len(sys.argv) > 2 else "Sandbox")
verifier = SignedDataVerifier([root], False, environment, "com.example.app", 1234567890)


class Webhook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        try:
            notification = verifier.verify_and_decode_notification(json.loads(body)["signedPayload"])
        except VerificationException as error:
            self.send_response(400)
            self.end_headers()
            self.wfile.write(f"verification failed: {error.status.name}".encode())
            return
        print(notification.rawNotificationType, notification.rawSubtype or "-", flush=True)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *arguments):
        pass


server = HTTPServer(("127.0.0.1", int(sys.argv[1])), Webhook)
print(f"listening on {server.server_port}", flush=True)
server.serve_forever()
