// Runs docs/server.md's simctl-verify.mjs (extracted to WORK by Tests/Node/run.sh) over WORK/run.jsonl (a signed
// Sandbox run) and over every negative fixture in WORK/negative and WORK/negative-production (simctl certs
// negative-fixtures): every notification of the run and each valid.json verify; every other fixture throws.
//   node verify_test.mjs WORK
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const work = process.argv[2];
const { verifyNotification, extensionOids, LEAF_MARKER, INTERMEDIATE_MARKER } = await import(
  pathToFileURL(join(work, "simctl-verify.mjs")).href
);

const root = readFileSync(join(work, "chain", "root.der"));
const lines = readFileSync(join(work, "run.jsonl"), "utf8").split("\n").filter((line) => line.length > 0);
assert.ok(lines.length >= 3, `a signed run has notifications, found ${lines.length}`);
const settings = { root, bundleId: "com.example.nightsky", environment: "Sandbox" };
for (const [index, line] of lines.entries()) {
  const notification = verifyNotification(JSON.parse(line).signedPayload, settings);
  assert.equal(notification.data.environment, "Sandbox", `notification ${index + 1}`);
  assert.ok(notification.data.transaction?.transactionId, `notification ${index + 1} has its transaction decoded`);
}
console.log(`run: ${lines.length} notifications verify against chain/root.der`);

// The DER walk reads the markers from the exported certificates.
assert.ok(extensionOids(readFileSync(join(work, "chain", "leaf.der"))).includes(LEAF_MARKER));
assert.ok(extensionOids(readFileSync(join(work, "chain", "intermediate.der"))).includes(INTERMEDIATE_MARKER));
assert.ok(!extensionOids(readFileSync(join(work, "chain", "root.der"))).includes(INTERMEDIATE_MARKER));

let refused = 0;
for (const folder of ["negative", "negative-production"]) {
  const manifest = JSON.parse(readFileSync(join(work, folder, "manifest.json"), "utf8"));
  const verifier = manifest.verifier;
  const fixtureSettings = {
    root: readFileSync(join(work, folder, verifier.rootCertificate)),
    bundleId: verifier.bundleId,
    environment: verifier.environment,
    appAppleId: verifier.appAppleId,
  };
  assert.ok(manifest.fixtures.length >= 10, `${folder}: the fixtures`);
  for (const fixture of manifest.fixtures) {
    const body = JSON.parse(readFileSync(join(work, folder, fixture.file), "utf8"));
    if (fixture.file === "valid.json") {
      verifyNotification(body.signedPayload, fixtureSettings);
      continue;
    }
    assert.throws(
      () => verifyNotification(body.signedPayload, fixtureSettings),
      `${folder}/${fixture.file} (${fixture.purpose}) must be refused`,
    );
    try {
      verifyNotification(body.signedPayload, fixtureSettings);
    } catch (error) {
      console.log(`${folder}/${fixture.file}: refused: ${error.message}`);
    }
    refused += 1;
  }
}
console.log(`negative fixtures: valid.json verifies, all ${refused} others are refused`);
