#!/usr/bin/env python3
"""Apple's Retention Messaging client and realtime decoder against `simctl serve`.

    retention_client.py SIMCTL SCENARIO ROOT_DER

Starts `SIMCTL serve SCENARIO --environment Sandbox --api-key-pem <a throwaway key's public half>` and points
Apple's AppStoreServerAPIClient (base URL replaced) at it. Calls all 14 Retention Messaging methods (upload, list
and delete images and messages; configure, get and delete a default message; configure, get and delete the realtime
URL; Initiate Performance Test and Get Performance Test Results) and Apple's error answers of each (every one must
carry an errorCode the library knows: APIException.api_error set). A Get Retention Message endpoint in this script,
written with Apple's library, verifies every realtime request with SignedDataVerifier.verify_and_decode_realtime_request
against simctl's root (ROOT_DER) and answers with Apple's RealtimeResponseBody models; viewCancellation actions
through the control API then record a message shown, a switch-plan product (accepted with the changePlan the
answer's `accept` names), a promotional offer signed with Apple's PromotionalOfferV2SignatureCreator (verified by
simctl with --api-key-pem, then redeemed), and the default message for a slow endpoint (0.9 s, over the 700 ms
limit) and for a malformed answer. The performance test passes against a fast endpoint (one that answers at once,
without verifying) and fails against the slow one, with percentiles. A second server in Production checks the review state (PENDING until reviewed through the
control API) and that a production realtime URL needs a passed test (4030026). SIGTERM stops each server with 0.

Prints one line per failure and ends with "retention client: N passed, M failed"; exits 1 on any failure.
"""
import http.server
import json
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
import zlib
from pathlib import Path

from appstoreserverlibrary.api_client import APIError, APIException, AppStoreServerAPIClient
from appstoreserverlibrary.jws_signature_creator import PromotionalOfferV2SignatureCreator
from appstoreserverlibrary.models.AlternateProduct import AlternateProduct
from appstoreserverlibrary.models.BillingPlanType import BillingPlanType
from appstoreserverlibrary.models.BulletPoint import BulletPoint
from appstoreserverlibrary.models.DefaultConfigurationRequest import DefaultConfigurationRequest
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.HeaderPosition import HeaderPosition
from appstoreserverlibrary.models.ImageSize import ImageSize
from appstoreserverlibrary.models.ImageState import ImageState
from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
from appstoreserverlibrary.models.Message import Message
from appstoreserverlibrary.models.MessageState import MessageState
from appstoreserverlibrary.models.PerformanceTestRequest import PerformanceTestRequest
from appstoreserverlibrary.models.PerformanceTestStatus import PerformanceTestStatus
from appstoreserverlibrary.models.PromotionalOffer import PromotionalOffer
from appstoreserverlibrary.models.RealtimeResponseBody import RealtimeResponseBody
from appstoreserverlibrary.models.RealtimeUrlRequest import RealtimeUrlRequest
from appstoreserverlibrary.models.UploadMessageImage import UploadMessageImage
from appstoreserverlibrary.models.UploadMessageRequestBody import UploadMessageRequestBody
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

BUNDLE_ID = "com.example.nightsky"
APP_APPLE_ID = 1234567890
ISSUER = "57246542-96fe-1a63-e053-0824d011072a"
BASIC = "com.example.nightsky.basic.monthly"
LITE = "com.example.nightsky.lite.monthly"

passed = 0
failures = []


def check(condition, what):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what)
        print(f"FAIL {what}")


def png(width, height, alpha=False):
    """A one-colour PNG (RGB, or RGBA with `alpha`)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    pixel = b"\x20\x40\x80\xff" if alpha else b"\x20\x40\x80"
    raw = b"".join(b"\x00" + pixel * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def expect_error(call, code, what):
    try:
        call()
        check(False, f"{what}: expected {code.name}, the call succeeded")
    except APIException as error:
        check(error.api_error == code, f"{what}: expected {code.name}, found {error.raw_api_error} {error.error_message}")


def control(url, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


class Endpoint(http.server.BaseHTTPRequestHandler):
    """A Get Retention Message endpoint written with Apple's library: verifies, decodes, answers a model."""
    verifier = None
    verified = []
    refused = []
    answers = {}  # originalTransactionId -> RealtimeResponseBody
    plain = 0
    default_answer = None

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        if self.path == "/plain":
            # The performance test's fast endpoint answers at once, without verifying (100 requests, 10 at a time:
            # verifying each costs CPU that a loaded CI machine may not have within 700 ms); the realtime views
            # below go to /fast, which verifies every request.
            Endpoint.plain += 1
            self.answer(_get_cattrs_converter(RealtimeResponseBody).unstructure(Endpoint.default_answer))
            return
        try:
            decoded = Endpoint.verifier.verify_and_decode_realtime_request(body["signedPayload"])
        except Exception as error:  # noqa: BLE001 - any failure is reported
            Endpoint.refused.append(repr(error))
            self.send_response(400)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        Endpoint.verified.append(decoded)
        if self.path == "/slow":
            time.sleep(0.9)
        if self.path == "/bad":
            answer = {"message": {"messageIdentifier": str(uuid.uuid4())}, "alternateProduct": {"productId": LITE}}
        else:
            model = Endpoint.answers.get(decoded.originalTransactionId, Endpoint.default_answer)
            answer = _get_cattrs_converter(RealtimeResponseBody).unstructure(model)
        self.answer(answer)

    def answer(self, answer):
        data = json.dumps(answer).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # simctl gave up at its 700 ms timeout (the slow endpoint): expected

    def log_message(self, *args):
        pass


class EndpointServer(http.server.ThreadingHTTPServer):
    request_queue_size = 64  # the performance test opens 10 connections at once (the default backlog is 5)


def start_serve(simctl, scenario, environment, public_path, workspace, name):
    server = subprocess.Popen(
        [simctl, "serve", scenario, "--port", "0", "--environment", environment, "--api-key-pem", str(public_path),
         "--log", str(Path(workspace) / f"{name}.log")],
        stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    check(url.startswith("http://127.0.0.1:"), f"{name}: the first line is the URL, found {url!r}")
    return server, url


def stop_serve(server, name):
    server.terminate()
    code = server.wait(timeout=30)
    check(code == 0, f"{name}: simctl serve exits 0 after SIGTERM, found {code}")


def main():
    simctl, scenario, root_der = sys.argv[1], sys.argv[2], Path(sys.argv[3]).read_bytes()
    key = ec.generate_private_key(ec.SECP256R1())
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    workspace = tempfile.mkdtemp()
    public_path = Path(workspace) / "api-key.pub.pem"
    public_path.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))

    Endpoint.verifier = SignedDataVerifier([root_der], False, Environment.SANDBOX, BUNDLE_ID, APP_APPLE_ID)
    endpoint = EndpointServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    endpoint_url = f"http://127.0.0.1:{endpoint.server_address[1]}"

    server, url = start_serve(simctl, scenario, "Sandbox", public_path, workspace, "sandbox")
    try:
        sandbox(url, endpoint_url, private_pem)
    finally:
        stop_serve(server, "sandbox")
    server, url = start_serve(simctl, scenario, "Production", public_path, workspace, "production")
    try:
        production(url, endpoint_url, private_pem)
    finally:
        stop_serve(server, "production")
    endpoint.shutdown()
    check(not Endpoint.refused, f"the endpoint verified every realtime request: {Endpoint.refused[:3]}")
    print(f"retention client: {passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


def client_for(url, private_pem, environment):
    client = AppStoreServerAPIClient(private_pem, "SIMCTLKEY1", ISSUER, BUNDLE_ID, environment)
    client._base_url = url  # Apple's client builds every URL as base URL + Apple's path.
    return client


def sandbox(url, endpoint_url, private_pem):
    client = client_for(url, private_pem, Environment.SANDBOX)
    status, state = control(url, "GET", "/simctl/v1/state")
    otid = {c["customer"]: c["subscriptions"][0]["originalTransactionId"] for c in state["customers"]}

    # Images: Upload Image (full size and bullet point), Get Image List, Delete Image, and their errors.
    banner, bullet, spare = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    client.upload_image(banner, png(3840, 160))
    client.upload_image(bullet, png(1024, 1024), ImageSize.BULLET_POINT)
    client.upload_image(spare, png(3840, 2160))
    expect_error(lambda: client.upload_image(banner, png(3840, 160)), APIError.IMAGE_ALREADY_EXISTS, "same image id")
    expect_error(lambda: client.upload_image(uuid.uuid4(), png(3840, 160, alpha=True)), APIError.INVALID_IMAGE,
                 "a transparent image")
    expect_error(lambda: client.upload_image(uuid.uuid4(), png(1920, 1080)), APIError.INVALID_IMAGE,
                 "a full-size image 1920 wide")
    expect_error(lambda: client.upload_image(uuid.uuid4(), png(3840, 100)), APIError.INVALID_IMAGE,
                 "a full-size image 100 high")
    expect_error(lambda: client.upload_image(uuid.uuid4(), png(512, 512), ImageSize.BULLET_POINT),
                 APIError.INVALID_IMAGE, "a bullet point 512 x 512")
    expect_error(lambda: client.upload_image(uuid.uuid4(), b"GIF89a not a png"), APIError.INVALID_IMAGE, "not a PNG")
    images = client.get_image_list()
    states = {str(i.imageIdentifier): (i.imageState, i.imageSize) for i in images.imageIdentifiers}
    check(states.get(str(banner)) == (ImageState.APPROVED, ImageSize.FULL_SIZE), f"banner listed APPROVED: {states}")
    check(states.get(str(bullet)) == (ImageState.APPROVED, ImageSize.BULLET_POINT), "bullet listed APPROVED")
    client.delete_image(spare)
    expect_error(lambda: client.delete_image(spare), APIError.IMAGE_NOT_FOUND, "a deleted image")
    check(len(client.get_image_list().imageIdentifiers) == 2, "two images left")

    # Messages: Upload Message (with image and bullet points, plain), Get Message List, Delete Message, errors.
    shown, switch, offer, fallback, spare_message = (uuid.uuid4() for _ in range(5))
    client.upload_message(shown, UploadMessageRequestBody(
        header="Stay for the stars", body="Your sky map keeps every constellation you saved.",
        image=UploadMessageImage(imageIdentifier=banner, altText="A night sky"),
        headerPosition=HeaderPosition.ABOVE_IMAGE,
        bulletPoints=[BulletPoint(text="Offline star charts", imageIdentifier=bullet, altText="A star")]))
    client.upload_message(switch, UploadMessageRequestBody(header="Try Lite", body="Keep the basics for less."))
    client.upload_message(offer, UploadMessageRequestBody(header="Half off", body="Three months at half price."))
    client.upload_message(fallback, UploadMessageRequestBody(header="Before you go", body="We'd miss you."))
    client.upload_message(spare_message, UploadMessageRequestBody(header="Spare", body="Deleted below."))
    expect_error(lambda: client.upload_message(shown, UploadMessageRequestBody(header="h", body="b")),
                 APIError.MESSAGE_ALREADY_EXISTS, "same message id")

    def too_long(field, value, **extra):
        body = UploadMessageRequestBody(header="h", body="b", **extra)
        object.__setattr__(body, field, value)  # past the library's own length check, to reach the server's
        return lambda: client.upload_message(uuid.uuid4(), body)

    expect_error(too_long("header", "h" * 67), APIError.HEADER_TOO_LONG, "a 67-character header")
    expect_error(too_long("body", "b" * 145), APIError.BODY_TOO_LONG, "a 145-character body")
    long_alt = UploadMessageImage(imageIdentifier=banner, altText="a")
    object.__setattr__(long_alt, "altText", "a" * 151)
    expect_error(too_long("image", long_alt), APIError.ALT_TEXT_TOO_LONG, "a 151-character altText")
    points = [BulletPoint(text="t", imageIdentifier=bullet, altText="a") for _ in range(6)]
    expect_error(too_long("bulletPoints", points), APIError.BAD_REQUEST_TOO_MANY_BULLET_POINTS, "six bullet points")
    long_point = BulletPoint(text="t", imageIdentifier=bullet, altText="a")
    object.__setattr__(long_point, "text", "t" * 67)
    expect_error(too_long("bulletPoints", [long_point]), APIError.BAD_REQUEST_BULLET_POINT_TEXT_TOO_LONG,
                 "a 67-character bullet point")
    expect_error(lambda: client.upload_message(uuid.uuid4(), UploadMessageRequestBody(
        header="h", body="b", headerPosition=HeaderPosition.ABOVE_IMAGE)),
        APIError.BAD_REQUEST_ABOVE_IMAGE_REQUIRES_AN_IMAGE, "ABOVE_IMAGE without an image")
    expect_error(lambda: client.upload_message(uuid.uuid4(), UploadMessageRequestBody(
        header="h", body="b", image=UploadMessageImage(imageIdentifier=bullet, altText="a"))),
        APIError.BAD_REQUEST_IMAGE_SIZE, "a bullet-point image as the message's image")
    messages = client.get_message_list()
    listed = {str(m.messageIdentifier): m.messageState for m in messages.messageIdentifiers}
    check(len(listed) == 5 and all(s == MessageState.APPROVED for s in listed.values()),
          f"five messages, APPROVED in the sandbox: {listed}")
    client.delete_message(spare_message)
    expect_error(lambda: client.delete_message(spare_message), APIError.MESSAGE_NOT_FOUND, "a deleted message")
    expect_error(lambda: client.delete_image(banner), APIError.IMAGE_IN_USE, "an image a message uses")

    # Default messages: Configure, Get, Delete Default Message, and their errors.
    expect_error(lambda: client.get_default_message(BASIC, "en-US"), APIError.DEFAULT_MESSAGE_NOT_FOUND,
                 "no default yet")
    client.configure_default_message(BASIC, "en-US", DefaultConfigurationRequest(messageIdentifier=shown))
    client.configure_default_message(BASIC, "en-US", DefaultConfigurationRequest(messageIdentifier=fallback))
    check(str(client.get_default_message(BASIC, "en-US").messageIdentifier) == str(fallback),
          "configuring again overwrites the default")
    expect_error(lambda: client.configure_default_message(BASIC, "not a locale!", DefaultConfigurationRequest(
        messageIdentifier=fallback)), APIError.INVALID_LOCALE, "an invalid locale")
    expect_error(lambda: client.configure_default_message(BASIC, "fr-FR", DefaultConfigurationRequest(
        messageIdentifier=uuid.uuid4())), APIError.MESSAGE_NOT_FOUND, "an unknown message")
    client.configure_default_message(BASIC, "fr-FR", DefaultConfigurationRequest(messageIdentifier=shown))
    client.delete_default_message(BASIC, "fr-FR")
    expect_error(lambda: client.delete_default_message(BASIC, "fr-FR"), APIError.DEFAULT_MESSAGE_NOT_FOUND,
                 "a deleted default")

    # Realtime URL: Get, Configure, Delete, and their errors.
    expect_error(client.get_realtime_url, APIError.REALTIME_URL_NOT_FOUND, "no realtime URL yet")
    expect_error(lambda: client.configure_realtime_url(RealtimeUrlRequest(realtimeURL="not a url")),
                 APIError.BAD_REQUEST_REALTIME_URL, "a malformed realtime URL")
    client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=endpoint_url + "/plain"))
    check(client.get_realtime_url().realtimeURL == endpoint_url + "/plain", "Get Realtime URL gives it back")

    # Performance tests: pass against the fast endpoint, fail against the slow one.
    Endpoint.default_answer = RealtimeResponseBody(message=Message(messageIdentifier=shown))
    expect_error(lambda: client.initiate_performance_test(PerformanceTestRequest(originalTransactionId="12ab")),
                 APIError.INVALID_TRANSACTION_ID, "a malformed original transaction id")
    started = client.initiate_performance_test(PerformanceTestRequest(originalTransactionId=otid["alice"]))
    check(started.config.totalRequests == 100 and started.config.responseTimeThreshold == 700,
          f"the test's config: {started.config}")
    fast = client.get_performance_test_results(started.requestId)
    times = fast.responseTimes
    print(f"performance test, fast endpoint: {fast.result} success {fast.successRate}% p50 {times.p50} ms "
          f"p90 {times.p90} ms p95 {times.p95} ms p99 {times.p99} ms")
    check(fast.result == PerformanceTestStatus.PASS, f"the fast endpoint passes: {fast}")
    check(times.p50 <= times.p90 <= times.p95 <= times.p99, "percentiles in order")
    check(Endpoint.plain >= fast.successRate, f"the endpoint got every request counted a success: {Endpoint.plain}")
    client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=endpoint_url + "/slow"))
    slow = client.get_performance_test_results(
        client.initiate_performance_test(PerformanceTestRequest(originalTransactionId=otid["alice"])).requestId)
    print(f"performance test, slow endpoint: {slow.result} success {slow.successRate}% p50 "
          f"{slow.responseTimes.p50} ms failures {slow.rawFailures}")
    check(slow.result == PerformanceTestStatus.FAIL, f"the slow endpoint fails: {slow}")
    check((slow.rawFailures or {}).get("TIMED_OUT", 0) > 0, "the slow endpoint's failures are TIMED_OUT")
    expect_error(lambda: client.get_performance_test_results(str(uuid.uuid4())),
                 APIError.PERFORMANCE_TEST_RUN_NOT_FOUND, "an unknown test")
    expect_error(lambda: client.get_performance_test_results("not-a-uuid"), APIError.INVALID_REQUEST_ID,
                 "a malformed test id")

    # viewCancellation: the endpoint verifies each request with Apple's library and answers a model.
    signer = PromotionalOfferV2SignatureCreator(private_pem, "SIMCTLKEY1", ISSUER, BUNDLE_ID)
    Endpoint.answers = {
        otid["alice"]: RealtimeResponseBody(message=Message(messageIdentifier=shown)),
        otid["bob"]: RealtimeResponseBody(alternateProduct=AlternateProduct(
            messageIdentifier=switch, productId=LITE, billingPlanType=BillingPlanType.BILLED_UPFRONT)),
        otid["carol"]: RealtimeResponseBody(promotionalOffer=PromotionalOffer(
            messageIdentifier=offer,
            promotionalOfferSignatureV2=signer.create_signature(BASIC, "retain.halfoff", otid["carol"]))),
    }
    client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=endpoint_url + "/fast"))
    before = len(Endpoint.verified)

    def view(customer, locale="en-US"):
        status, answer = control(url, "POST", "/simctl/v1/actions",
                                 {"viewCancellation": {"customer": customer, "locale": locale}})
        check(status == 200, f"viewCancellation {customer}: {status} {answer}")
        return answer.get("cancellationViews", [{}])[0]

    alice = view("alice")
    check(alice.get("outcome", {}).get("kind") == "message", f"alice sees the message: {alice}")
    check(alice.get("elapsedMilliseconds", 10_000) <= 700, "alice's answer within 700 ms")
    decoded = Endpoint.verified[before]
    check(decoded.originalTransactionId == otid["alice"] and decoded.productId == BASIC
          and decoded.userLocale == "en-US" and decoded.appAppleId == APP_APPLE_ID
          and decoded.environment == Environment.SANDBOX and str(decoded.requestIdentifier)
          == alice["request"]["requestIdentifier"], f"the decoded request: {decoded}")
    bob = view("bob")
    check(bob.get("outcome", {}).get("kind") == "alternateProduct"
          and bob["outcome"].get("productId") == LITE, f"bob is offered lite: {bob}")
    status, changed = control(url, "POST", "/simctl/v1/actions", bob["outcome"]["accept"])
    check(status == 200 and changed.get("action") == "changePlan", f"bob accepts the switch: {status} {changed}")
    carol = view("carol")
    check(carol.get("outcome", {}).get("kind") == "promotionalOffer"
          and carol["outcome"].get("offerIdentifier") == "retain.halfoff", f"carol is offered the offer: {carol}")
    status, redeemed = control(url, "POST", "/simctl/v1/actions", carol["outcome"]["accept"])
    check(status == 200 and any(n["notificationType"] == "OFFER_REDEEMED" for n in redeemed.get("notifications", [])),
          f"carol redeems it: {status} {redeemed}")
    # A signature made with another key does not verify: the default message.
    other = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    forged = PromotionalOfferV2SignatureCreator(other, "SIMCTLKEY1", ISSUER, BUNDLE_ID)
    Endpoint.answers[otid["erin"]] = RealtimeResponseBody(promotionalOffer=PromotionalOffer(
        messageIdentifier=offer, promotionalOfferSignatureV2=forged.create_signature(BASIC, "retain.halfoff", None)))
    erin = view("erin")
    check(erin.get("outcome", {}).get("kind") == "defaultMessage"
          and "does not verify" in erin["outcome"].get("reason", ""), f"a forged offer gets the default: {erin}")
    client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=endpoint_url + "/slow"))
    dave = view("dave")
    check(dave.get("outcome", {}).get("kind") == "defaultMessage"
          and dave["outcome"].get("messageIdentifier") == str(fallback)
          and "TIMED_OUT" in dave["outcome"].get("reason", ""), f"the slow endpoint gets the default: {dave}")
    client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=endpoint_url + "/bad"))
    alice_again = view("alice", "fr-FR")
    check(alice_again.get("outcome", {}).get("kind") == "noMessage",
          f"a malformed answer with no fr-FR default shows no message: {alice_again}")
    status, retention = control(url, "GET", "/simctl/v1/retention")
    check(status == 200 and len(retention["cancellationViews"]) == 6 and len(retention["performanceTests"]) == 2,
          f"/simctl/v1/retention lists the views and tests: {status}")
    client.delete_realtime_url()
    expect_error(client.delete_realtime_url, APIError.REALTIME_URL_NOT_FOUND, "a deleted realtime URL")
    eve = view("alice")
    check(eve.get("outcome", {}).get("kind") == "defaultMessage"
          and "no realtime URL" in eve["outcome"].get("reason", ""), f"no URL: the default message: {eve}")


def production(url, endpoint_url, private_pem):
    client = client_for(url, private_pem, Environment.PRODUCTION)
    message = uuid.uuid4()
    client.upload_message(message, UploadMessageRequestBody(header="Before you go", body="We'd miss you."))
    states = [m.messageState for m in client.get_message_list().messageIdentifiers]
    check(states == [MessageState.PENDING], f"Production: a new message is PENDING: {states}")
    expect_error(lambda: client.configure_default_message(BASIC, "en-US", DefaultConfigurationRequest(
        messageIdentifier=message)), APIError.MESSAGE_NOT_APPROVED, "Production: a PENDING message as default")
    status, _ = control(url, "POST", "/simctl/v1/retention/review",
                        {"identifier": str(message), "state": "APPROVED"})
    check(status == 200, "the control API approves the message")
    client.configure_default_message(BASIC, "en-US", DefaultConfigurationRequest(messageIdentifier=message))
    expect_error(lambda: client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=endpoint_url + "/fast")),
                 APIError.FORBIDDEN_NO_PASSING_TEST, "Production: a realtime URL before a passed test")


if __name__ == "__main__":
    main()
