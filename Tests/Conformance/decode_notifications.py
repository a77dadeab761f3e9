#!/usr/bin/env python3
"""Decodes App Store Server Notification POST bodies with Apple's official App Store Server Library.

Input: files or folders. A .jsonl file holds one POST body ({"signedPayload": "<JWS>"}) per line; a folder is
searched recursively for *.jsonl files (except *.decoded.jsonl, the decoded view) and for fixture files NNNN.json
(manifest.json is skipped). "-" reads
standard input.

Each notification is decoded with SignedDataVerifier (environment taken from the payload: LocalTesting or Xcode,
for which Apple's library skips signature verification), then its signedTransactionInfo and signedRenewalInfo.
It fails on any exception, on any enum value the library does not know (a raw* field set while its typed field is
None), and on breaches of the simulator's contract checked on the raw JSON: no null anywhere, dates are integers,
identifiers are decimal-digit strings, notificationUUID and appAccountToken are lowercase UUIDs, and the
always-present fields (appTransactionId included); refund fields agree (revocationType with its
revocationPercentage, consumptionRequestReason exactly in CONSUMPTION_REQUEST); a RENEWAL_EXTENSION / SUMMARY
carries a complete `summary` and no `data`; TEST carries no signedTransactionInfo; RESCIND_CONSENT carries `appData`
(no `data`) whose signedAppTransactionInfo decodes as Apple's AppTransaction.
Prints one line per failure and ends with "conformance: N passed, M failed".
"""
import base64
import json
import re
import sys
from pathlib import Path

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
DIGITS_RE = re.compile(r"^[0-9]+$")
ID_FIELDS = {"transactionId", "originalTransactionId", "webOrderLineItemId", "appTransactionId"}
REQUIRED_TRANSACTION = ["transactionId", "originalTransactionId", "bundleId", "productId", "purchaseDate",
                        "originalPurchaseDate", "quantity", "type", "inAppOwnershipType", "signedDate",
                        "environment", "storefront", "storefrontId", "transactionReason", "price", "currency",
                        "appTransactionId"]
REQUIRED_RENEWAL = ["originalTransactionId", "productId", "autoRenewProductId", "autoRenewStatus", "renewalDate",
                    "recentSubscriptionStartDate", "signedDate", "environment", "appTransactionId"]
ENVIRONMENTS = {"LocalTesting": Environment.LOCAL_TESTING, "Xcode": Environment.XCODE}
# Apple's `summary` object (reference §2.4) and the revocation fields (§2.5, §5.14).
SUMMARY_FIELDS = {"requestIdentifier": str, "environment": str, "appAppleId": int, "bundleId": str, "productId": str,
                  "storefrontCountryCodes": list, "succeededCount": int, "failedCount": int}


def jws_payload(jws):
    parts = jws.split(".")
    if len(parts) != 3:
        raise ValueError(f"a compact JWS has 3 parts, found {len(parts)}")
    header = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
    if header.get("alg") != "ES256" or not isinstance(header.get("x5c"), list) or len(header["x5c"]) != 3:
        raise ValueError(f"JWS header must be alg ES256 with 3 x5c certificates, found {header}")
    return json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))


def check_raw(value, path, problems):
    """No nulls; dates are integers; ids are digit strings."""
    if value is None:
        problems.append(f"{path} is null (optional fields must be omitted)")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_raw(item, f"{path}.{key}", problems)
            if key.endswith("Date") and not (isinstance(item, int) and not isinstance(item, bool)):
                problems.append(f"{path}.{key} must be an integer (ms), found {item!r}")
            if key in ID_FIELDS and not (isinstance(item, str) and DIGITS_RE.match(item)):
                problems.append(f"{path}.{key} must be a decimal-digit string, found {item!r}")
            if key == "appAccountToken" and not (isinstance(item, str) and UUID_RE.match(item)):
                problems.append(f"{path}.{key} must be a lowercase UUID, found {item!r}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_raw(item, f"{path}[{index}]", problems)


def unknown_enums(model, path, problems):
    """A raw* attribute set while its typed attribute is None means the library did not know the value."""
    if model is None:
        return
    for name in dir(model):
        if not name.startswith("raw") or len(name) < 4:
            continue
        typed = name[3].lower() + name[4:]
        raw = getattr(model, name, None)
        if raw is not None and hasattr(model, typed) and getattr(model, typed) is None:
            problems.append(f"{path}.{typed}: value {raw!r} is not a known enum value in Apple's library")


def check_commitment(model, raw, path, problems):
    """A 12-month commitment's fields (reference Appendix E.2): the library's nested model (TransactionCommitmentInfo or
    RenewalCommitmentInfo) must hold every raw member with its value, and know every enum value; billingPeriodNumber
    is 1 to 12 and totalBillingPeriods 12; billingPlanType MONTHLY goes with commitmentInfo."""
    info_raw = raw.get("commitmentInfo")
    if info_raw is None:
        if raw.get("billingPlanType") == "MONTHLY":
            problems.append(f"{path}: billingPlanType MONTHLY without commitmentInfo")
        return
    info = getattr(model, "commitmentInfo", None)
    if info is None:
        problems.append(f"{path}.commitmentInfo was not decoded by Apple's library")
        return
    unknown_enums(info, f"{path}.commitmentInfo", problems)
    for key, value in info_raw.items():
        decoded = getattr(info, "raw" + key[0].upper() + key[1:], None)
        if decoded is None:
            decoded = getattr(info, key, None)
        if decoded != value:
            problems.append(f"{path}.commitmentInfo.{key}: {value!r} decoded as {decoded!r}")
    if "billingPeriodNumber" in info_raw:
        if raw.get("billingPlanType") != "MONTHLY":
            problems.append(f"{path}: commitmentInfo on a transaction whose billingPlanType is not MONTHLY")
        if not 1 <= info_raw["billingPeriodNumber"] <= info_raw.get("totalBillingPeriods", 12):
            problems.append(f"{path}.commitmentInfo.billingPeriodNumber out of range: {info_raw['billingPeriodNumber']}")
        if info_raw.get("totalBillingPeriods") != 12:
            problems.append(f"{path}.commitmentInfo.totalBillingPeriods must be 12")


def check_notification(body_text):
    problems = []
    body = json.loads(body_text)
    if set(body.keys()) != {"signedPayload"}:
        return None, [f"POST body must be exactly {{\"signedPayload\": ...}}, found keys {sorted(body.keys())}"]
    raw = jws_payload(body["signedPayload"])
    check_raw(raw, "payload", problems)
    data = raw.get("data") or {}
    if "summary" in raw:
        return raw, problems + check_summary(raw, body["signedPayload"])
    if "appData" in raw or raw.get("notificationType") == "RESCIND_CONSENT":
        return raw, problems + check_app_data(raw, body["signedPayload"])
    environment = ENVIRONMENTS.get(data.get("environment"))
    if environment is None:
        return raw, problems + [f"data.environment must be LocalTesting or Xcode, found {data.get('environment')!r}"]
    verifier = SignedDataVerifier([], False, environment, data.get("bundleId"), data.get("appAppleId"))
    notification = verifier.verify_and_decode_notification(body["signedPayload"])
    unknown_enums(notification, "payload", problems)
    unknown_enums(notification.data, "payload.data", problems)
    if raw.get("version") != "2.0":
        problems.append(f"version must be \"2.0\", found {raw.get('version')!r}")
    if not UUID_RE.match(str(raw.get("notificationUUID", ""))):
        problems.append(f"notificationUUID must be a lowercase UUID, found {raw.get('notificationUUID')!r}")
    if raw.get("notificationType") == "TEST":
        # TEST: data carries bundleId, environment (and appAppleId in production) only (reference §1.2, §6.3).
        for key in ["signedTransactionInfo", "signedRenewalInfo", "status"]:
            if key in data:
                problems.append(f"data.{key} must be absent from TEST")
        return raw, problems
    for key in ["bundleId", "bundleVersion", "environment", "signedTransactionInfo"]:
        if key not in data:
            problems.append(f"data.{key} is missing")
    if (raw.get("notificationType") == "CONSUMPTION_REQUEST") != ("consumptionRequestReason" in data):
        problems.append("data.consumptionRequestReason must be present in CONSUMPTION_REQUEST and only there")
    transaction_raw = jws_payload(data["signedTransactionInfo"])
    check_raw(transaction_raw, "transaction", problems)
    transaction = verifier.verify_and_decode_signed_transaction(data["signedTransactionInfo"])
    unknown_enums(transaction, "transaction", problems)
    check_commitment(transaction, transaction_raw, "transaction", problems)
    for key in REQUIRED_TRANSACTION:
        if key not in transaction_raw:
            problems.append(f"transaction.{key} is missing")
    check_revocation(raw.get("notificationType"), transaction_raw, problems)
    if transaction_raw.get("type") == "Auto-Renewable Subscription":
        for key in ["status", "signedRenewalInfo"]:
            if key not in data:
                problems.append(f"data.{key} is missing for an auto-renewable subscription")
        for key in ["expiresDate", "webOrderLineItemId", "subscriptionGroupIdentifier"]:
            if key not in transaction_raw:
                problems.append(f"transaction.{key} is missing for an auto-renewable subscription")
    if "signedRenewalInfo" in data:
        renewal_raw = jws_payload(data["signedRenewalInfo"])
        check_raw(renewal_raw, "renewal", problems)
        renewal = verifier.verify_and_decode_renewal_info(data["signedRenewalInfo"])
        unknown_enums(renewal, "renewal", problems)
        check_commitment(renewal, renewal_raw, "renewal", problems)
        for key in REQUIRED_RENEWAL:
            if key not in renewal_raw:
                problems.append(f"renewal.{key} is missing")
    return raw, problems


def check_revocation(kind, transaction, problems):
    """revocationDate, revocationReason and revocationType come together; revocationPercentage is 100000 for
    REFUND_FULL, 1..99999 for REFUND_PRORATED, absent for FAMILY_REVOKE; REFUND_REVERSED has none of them."""
    fields = ["revocationDate", "revocationReason", "revocationType"]
    present = [key in transaction for key in fields]
    if any(present) and not all(present):
        problems.append(f"transaction: {', '.join(fields)} must come together, found {present}")
    revocation_type = transaction.get("revocationType")
    percentage = transaction.get("revocationPercentage")
    if revocation_type == "REFUND_FULL" and percentage != 100000:
        problems.append(f"transaction.revocationPercentage must be 100000 for REFUND_FULL, found {percentage!r}")
    if revocation_type == "REFUND_PRORATED" and not (isinstance(percentage, int) and 0 < percentage < 100000):
        problems.append(f"transaction.revocationPercentage must be 1..99999 for REFUND_PRORATED, found {percentage!r}")
    if revocation_type in (None, "FAMILY_REVOKE") and percentage is not None:
        problems.append(f"transaction.revocationPercentage must be absent for {revocation_type}, found {percentage!r}")
    if kind in ("REFUND", "REVOKE") and revocation_type is None:
        problems.append(f"transaction of a {kind} must carry the revocation fields")
    if kind == "REFUND_REVERSED" and revocation_type is not None:
        problems.append("transaction of a REFUND_REVERSED must carry no revocation fields")


def check_summary(raw, signed_payload):
    """RENEWAL_EXTENSION / SUMMARY: a complete `summary` object, no `data`, decoded by Apple's library."""
    problems = []
    summary = raw["summary"]
    if raw.get("notificationType") != "RENEWAL_EXTENSION" or raw.get("subtype") != "SUMMARY":
        problems.append("a summary object belongs to RENEWAL_EXTENSION / SUMMARY only")
    if "data" in raw:
        problems.append("a RENEWAL_EXTENSION / SUMMARY carries summary, not data")
    for key, kind in SUMMARY_FIELDS.items():
        value = summary.get(key)
        if key == "storefrontCountryCodes" and value is None:
            continue  # absent when the request named no storefronts (rule summary-omits-unrequested-storefronts)
        if key == "storefrontCountryCodes" and value == []:
            problems.append("summary.storefrontCountryCodes is empty: leave it out when the request named none")
            continue
        if not isinstance(value, kind) or isinstance(value, bool):
            problems.append(f"summary.{key} must be a {kind.__name__}, found {value!r}")
    for code in summary.get("storefrontCountryCodes") or []:
        if not (isinstance(code, str) and re.match(r"^[A-Z]{3}$", code)):
            problems.append(f"summary.storefrontCountryCodes holds {code!r}, not an ISO 3166-1 alpha-3 code")
    environment = ENVIRONMENTS.get(summary.get("environment"))
    if environment is None:
        return problems + [f"summary.environment must be LocalTesting or Xcode, found {summary.get('environment')!r}"]
    verifier = SignedDataVerifier([], False, environment, summary.get("bundleId"), summary.get("appAppleId"))
    notification = verifier.verify_and_decode_notification(signed_payload)
    unknown_enums(notification, "payload", problems)
    unknown_enums(notification.summary, "payload.summary", problems)
    return problems


APP_DATA_FIELDS = {"bundleId": str, "environment": str, "signedAppTransactionInfo": str}
APP_TRANSACTION_FIELDS = {"receiptType": str, "bundleId": str, "applicationVersion": str,
                          "originalApplicationVersion": str, "receiptCreationDate": int, "originalPurchaseDate": int,
                          "appTransactionId": str, "originalPlatform": str}
APP_TRANSACTION_OPTIONAL = {"appAppleId": int, "versionExternalIdentifier": int, "preorderDate": int,
                            "deviceVerification": str, "deviceVerificationNonce": str}


def check_app_data(raw, signed_payload):
    """RESCIND_CONSENT: `appData` (Apple's AppData: appAppleId, bundleId, environment, signedAppTransactionInfo) and no
    `data` or `summary`; no subtype; the AppTransaction decoded by Apple's library, every member read back with its
    value and JSON type, no unknown enum value (receiptType, originalPlatform)."""
    problems = []
    app_data = raw.get("appData")
    if raw.get("notificationType") != "RESCIND_CONSENT":
        problems.append("appData belongs to RESCIND_CONSENT only")
    if not isinstance(app_data, dict):
        return problems + ["RESCIND_CONSENT must carry an appData object"]
    for key in ["data", "summary", "subtype"]:
        if key in raw:
            problems.append(f"RESCIND_CONSENT carries appData, not {key}")
    for key, kind in APP_DATA_FIELDS.items():
        if not isinstance(app_data.get(key), kind):
            problems.append(f"appData.{key} must be a {kind.__name__}, found {app_data.get(key)!r}")
    unexpected = set(app_data) - set(APP_DATA_FIELDS) - {"appAppleId"}
    if unexpected:
        problems.append(f"appData has fields Apple's AppData lacks: {sorted(unexpected)}")
    environment = ENVIRONMENTS.get(app_data.get("environment"))
    if environment is None:
        return problems + [f"appData.environment must be LocalTesting or Xcode, found {app_data.get('environment')!r}"]
    verifier = SignedDataVerifier([], False, environment, app_data.get("bundleId"), app_data.get("appAppleId"))
    notification = verifier.verify_and_decode_notification(signed_payload)
    unknown_enums(notification, "payload", problems)
    unknown_enums(notification.appData, "payload.appData", problems)
    if notification.appData is None or notification.appData.signedAppTransactionInfo != app_data["signedAppTransactionInfo"]:
        problems.append("Apple's library did not read appData.signedAppTransactionInfo")
    transaction_raw = jws_payload(app_data["signedAppTransactionInfo"])
    check_raw(transaction_raw, "appTransaction", problems)
    decoded = verifier.verify_and_decode_app_transaction(app_data["signedAppTransactionInfo"])
    unknown_enums(decoded, "appTransaction", problems)
    check_app_transaction(transaction_raw, decoded, "appTransaction", problems)
    if transaction_raw.get("bundleId") != app_data.get("bundleId"):
        problems.append("appTransaction.bundleId differs from appData.bundleId")
    if transaction_raw.get("receiptType") != app_data.get("environment"):
        problems.append("appTransaction.receiptType differs from appData.environment")
    return problems


def check_app_transaction(raw, decoded, path, problems):
    """An AppTransaction payload: the always-present members with their JSON types, the optional ones typed when
    present, nothing Apple's model lacks, every member read back by Apple's library with its value."""
    for key, kind in APP_TRANSACTION_FIELDS.items():
        if not isinstance(raw.get(key), kind) or isinstance(raw.get(key), bool):
            problems.append(f"{path}.{key} must be a {kind.__name__}, found {raw.get(key)!r}")
    for key, kind in APP_TRANSACTION_OPTIONAL.items():
        if key in raw and (not isinstance(raw[key], kind) or isinstance(raw[key], bool)):
            problems.append(f"{path}.{key} must be a {kind.__name__}, found {raw[key]!r}")
    unexpected = set(raw) - set(APP_TRANSACTION_FIELDS) - set(APP_TRANSACTION_OPTIONAL)
    if unexpected:
        problems.append(f"{path} has fields Apple's AppTransaction lacks: {sorted(unexpected)}")
    for key, value in raw.items():
        read = getattr(decoded, "raw" + key[0].upper() + key[1:], None)
        if read is None:
            read = getattr(decoded, key, None)
        if read != value:
            problems.append(f"{path}.{key}: {value!r} read back as {read!r}")


def inputs(arguments):
    for argument in arguments:
        if argument == "-":
            for number, line in enumerate(sys.stdin, 1):
                yield f"<stdin>:{number}", line
            continue
        path = Path(argument)
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.name.endswith(".decoded.jsonl"):
                continue  # the simulator's human-readable decoded view, not POST bodies
            if file.suffix == ".jsonl":
                for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                    yield f"{file}:{number}", line
            elif file.suffix == ".json" and file.name != "manifest.json" and re.match(r"^[0-9]+\.json$", file.name):
                yield f"{file}:1", file.read_text(encoding="utf-8")


def main(arguments):
    passed = failed = 0
    for where, line in inputs(arguments):
        if not line.strip():
            continue
        try:
            raw, problems = check_notification(line)
        except Exception as error:  # the library's own exceptions included
            raw, problems = None, [f"{type(error).__name__}: {error}"]
        if problems:
            failed += 1
            kind = raw.get("notificationType", "?") if isinstance(raw, dict) else "?"
            for problem in problems:
                print(f"{where}: {kind}: {problem}")
        else:
            passed += 1
    print(f"conformance: {passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["-"]))
