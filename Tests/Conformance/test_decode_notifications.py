#!/usr/bin/env python3
"""Self-test of decode_notifications.py: a valid notification passes, broken ones are caught."""
import base64
import json
import sys

import decode_notifications as conformance


def jws(payload):
    def b64(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    return b64({"alg": "ES256", "x5c": ["a", "b", "c"]}) + "." + b64(payload) + "." + b64("signature")


TRANSACTION = {
    "transactionId": "2000000000000001", "originalTransactionId": "2000000000000001",
    "webOrderLineItemId": "3000000000000001", "bundleId": "com.example", "productId": "p",
    "subscriptionGroupIdentifier": "21000001", "purchaseDate": 1, "originalPurchaseDate": 1, "expiresDate": 2,
    "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": 1,
    "environment": "LocalTesting", "storefront": "USA", "storefrontId": "143441", "transactionReason": "PURCHASE",
    "price": 9990, "currency": "USD", "appTransactionId": "7000000000000001",
}
RENEWAL = {
    "originalTransactionId": "2000000000000001", "productId": "p", "autoRenewProductId": "p", "autoRenewStatus": 1,
    "renewalDate": 2, "recentSubscriptionStartDate": 1, "signedDate": 1, "environment": "LocalTesting",
    "appTransactionId": "7000000000000001",
}


def body(notification_type="SUBSCRIBED", transaction=None, renewal=None, **extra):
    payload = {
        "notificationType": notification_type, "subtype": "INITIAL_BUY",
        "notificationUUID": "00000000-0000-4000-8000-000000000001", "version": "2.0", "signedDate": 1,
        "data": {"bundleId": "com.example", "bundleVersion": "1.0", "environment": "LocalTesting", "status": 1,
                 "signedTransactionInfo": jws(transaction or TRANSACTION),
                 "signedRenewalInfo": jws(renewal or RENEWAL)},
    }
    payload.update(extra)
    if payload.get("subtype") is None:
        payload.pop("subtype")  # subtype=None: a notification type without subtype
    return json.dumps({"signedPayload": jws(payload)})


def consumption(reason):
    data = {"bundleId": "com.example", "bundleVersion": "1.0", "environment": "LocalTesting", "status": 1,
            "signedTransactionInfo": jws(TRANSACTION), "signedRenewalInfo": jws(RENEWAL)}
    if reason is not None:
        data["consumptionRequestReason"] = reason
    return body("CONSUMPTION_REQUEST", subtype=None, data=data)


def refund(revocation_type, percentage, kind="REFUND"):
    transaction = dict(TRANSACTION, revocationDate=2, revocationReason=0, revocationType=revocation_type)
    if percentage is not None:
        transaction["revocationPercentage"] = percentage
    return body(kind, transaction=transaction, subtype=None)


SUMMARY = {
    "requestIdentifier": "5bd3a7a8-6a4f-4c3e-9f41-2d1a0f0d8c11", "environment": "LocalTesting",
    "appAppleId": 1234567890, "bundleId": "com.example", "productId": "p", "storefrontCountryCodes": ["USA", "FRA"],
    "succeededCount": 2, "failedCount": 1,
}


COMMITMENT = {"billingPeriodNumber": 3, "totalBillingPeriods": 12, "commitmentExpiresDate": 5, "commitmentPrice": 131880}
RENEWAL_COMMITMENT = {"commitmentAutoRenewProductId": "p", "commitmentAutoRenewStatus": 0,
                      "commitmentRenewalBillingPlanType": "MONTHLY", "commitmentRenewalDate": 5,
                      "commitmentRenewalPrice": 10990}


def commitment(info=None, plan="MONTHLY", renewal_info=None, renewal_plan="MONTHLY"):
    """A transaction and renewal info of a 12-month commitment (reference Appendix E.2)."""
    transaction = dict(TRANSACTION, billingPlanType=plan, commitmentInfo=info or COMMITMENT)
    renewal = dict(RENEWAL, renewalBillingPlanType=renewal_plan, commitmentInfo=renewal_info or RENEWAL_COMMITMENT)
    return body(transaction=transaction, renewal=renewal)


def summary(content):
    payload = {"notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY",
               "notificationUUID": "00000000-0000-4000-8000-000000000002", "version": "2.0", "signedDate": 1,
               "summary": content}
    return json.dumps({"signedPayload": jws(payload)})


def test_notification(with_transaction):
    data = {"bundleId": "com.example", "environment": "LocalTesting"}
    if with_transaction:
        data["signedTransactionInfo"] = jws(TRANSACTION)
    payload = {"notificationType": "TEST", "notificationUUID": "00000000-0000-4000-8000-000000000003",
               "version": "2.0", "signedDate": 1, "data": data}
    return json.dumps({"signedPayload": jws(payload)})


APP_TRANSACTION = {
    "receiptType": "LocalTesting", "appAppleId": 1234567890, "bundleId": "com.example", "applicationVersion": "1.0",
    "originalApplicationVersion": "1.0", "receiptCreationDate": 2, "originalPurchaseDate": 1,
    "appTransactionId": "7000000000000001", "originalPlatform": "iOS",
}


def rescind_consent(app_transaction=None, **extra):
    """RESCIND_CONSENT: appData (Apple's AppData) with the customer's signed AppTransaction, no data."""
    app_data = {"appAppleId": 1234567890, "bundleId": "com.example", "environment": "LocalTesting",
                "signedAppTransactionInfo": jws(app_transaction or APP_TRANSACTION)}
    payload = {"notificationType": "RESCIND_CONSENT", "notificationUUID": "00000000-0000-4000-8000-000000000004",
               "version": "2.0", "signedDate": 2, "appData": app_data}
    payload.update(extra)
    return json.dumps({"signedPayload": jws(payload)})


def problems(text):
    try:
        return conformance.check_notification(text)[1]
    except Exception as error:
        return [str(error)]


def main():
    failures = []
    cases = [
        ("valid notification passes", body(), False),
        ("unknown notificationType is caught", body("NOT_A_TYPE"), True),
        ("null field is caught", body(transaction=dict(TRANSACTION, appAccountToken=None)), True),
        ("missing storefront is caught", body(transaction={k: v for k, v in TRANSACTION.items() if k != "storefront"}), True),
        ("string date is caught", body(transaction=dict(TRANSACTION, purchaseDate="1")), True),
        ("uppercase UUID is caught", body(notificationUUID="00000000-0000-4000-8000-00000000000A"), True),
        ("missing renewalDate is caught", body(renewal={k: v for k, v in RENEWAL.items() if k != "renewalDate"}), True),
        ("wrong environment is caught", body(transaction=dict(TRANSACTION, environment="Sandbox")), True),
        ("missing appTransactionId is caught",
         body(transaction={k: v for k, v in TRANSACTION.items() if k != "appTransactionId"}), True),
        ("appTransactionId missing from renewal info is caught",
         body(renewal={k: v for k, v in RENEWAL.items() if k != "appTransactionId"}), True),
        ("lowercase appAccountToken passes",
         body(transaction=dict(TRANSACTION, appAccountToken="7e3fb20b-4cdb-47cc-936d-99d65f608138")), False),
        ("uppercase appAccountToken is caught",
         body(transaction=dict(TRANSACTION, appAccountToken="7E3FB20B-4CDB-47CC-936D-99D65F608138")), True),
        # refund requests and refunds: consumptionRequestReason and revocationPercentage
        ("CONSUMPTION_REQUEST with its reason passes", consumption("UNINTENDED_PURCHASE"), False),
        ("unknown consumptionRequestReason is caught", consumption("NOT_A_REASON"), True),
        ("CONSUMPTION_REQUEST without a reason is caught", consumption(None), True),
        ("prorated refund with its percentage passes", refund("REFUND_PRORATED", 50000), False),
        ("full refund with a partial percentage is caught", refund("REFUND_FULL", 50000), True),
        ("prorated refund without a percentage is caught", refund("REFUND_PRORATED", None), True),
        ("family revoke with a percentage is caught", refund("FAMILY_REVOKE", 100000, kind="REVOKE"), True),
        ("REFUND_REVERSED with revocation fields is caught", refund("REFUND_FULL", 100000, kind="REFUND_REVERSED"), True),
        ("unknown revocationType is caught", refund("REFUND_SOMETIMES", None), True),
        ("complete summary passes", summary(SUMMARY), False),
        ("summary without failedCount is caught", summary({k: v for k, v in SUMMARY.items() if k != "failedCount"}), True),
        ("summary with a two-letter storefront is caught", summary(dict(SUMMARY, storefrontCountryCodes=["US"])), True),
        # 12-month commitments: Apple's library decodes every field; the simulator's range contract
        ("commitment transaction and renewal info pass", commitment(), False),
        ("billingPeriodNumber 13 is caught", commitment(dict(COMMITMENT, billingPeriodNumber=13)), True),
        ("billingPeriodNumber 0 is caught", commitment(dict(COMMITMENT, billingPeriodNumber=0)), True),
        ("totalBillingPeriods other than 12 is caught", commitment(dict(COMMITMENT, totalBillingPeriods=6)), True),
        ("unknown billingPlanType is caught", commitment(plan="WEEKLY"), True),
        ("commitmentInfo with BILLED_UPFRONT is caught", commitment(plan="BILLED_UPFRONT"), True),
        ("unknown renewalBillingPlanType is caught", commitment(renewal_plan="YEARLY"), True),
        ("unknown commitmentRenewalBillingPlanType is caught",
         commitment(renewal_info=dict(RENEWAL_COMMITMENT, commitmentRenewalBillingPlanType="YEARLY")), True),
        ("unknown commitmentAutoRenewStatus is caught",
         commitment(renewal_info=dict(RENEWAL_COMMITMENT, commitmentAutoRenewStatus=7)), True),
        ("MONTHLY without commitmentInfo is caught", body(transaction=dict(TRANSACTION, billingPlanType="MONTHLY")), True),
        ("summary with an empty storefront list is caught", summary(dict(SUMMARY, storefrontCountryCodes=[])), True),
        ("summary without storefrontCountryCodes passes",
         summary({k: v for k, v in SUMMARY.items() if k != "storefrontCountryCodes"}), False),
        ("TEST without transaction passes", test_notification(False), False),
        ("TEST with a transaction is caught", test_notification(True), True),
        # RESCIND_CONSENT (issue 50): appData and Apple's AppTransaction
        ("RESCIND_CONSENT with appData passes", rescind_consent(), False),
        ("RESCIND_CONSENT with data too is caught", rescind_consent(data={"bundleId": "com.example"}), True),
        ("RESCIND_CONSENT with a subtype is caught", rescind_consent(subtype="SUMMARY"), True),
        ("unknown originalPlatform is caught", rescind_consent(dict(APP_TRANSACTION, originalPlatform="webOS")), True),
        ("AppTransaction without appTransactionId is caught",
         rescind_consent({k: v for k, v in APP_TRANSACTION.items() if k != "appTransactionId"}), True),
        ("AppTransaction with a string date is caught",
         rescind_consent(dict(APP_TRANSACTION, originalPurchaseDate="1")), True),
        ("AppTransaction with a field Apple lacks is caught", rescind_consent(dict(APP_TRANSACTION, platform="iOS")), True),
        ("AppTransaction of another bundle is caught", rescind_consent(dict(APP_TRANSACTION, bundleId="com.other")), True),
    ]
    for name, text, should_fail in cases:
        found = problems(text)
        if bool(found) != should_fail:
            failures.append(f"{name}: expected {'a problem' if should_fail else 'no problem'}, found {found}")
    for failure in failures:
        print(failure)
    print(f"conformance self-test: {len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
