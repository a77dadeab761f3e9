"""Tests of check_layers.py on small fake packages built in a temporary folder (Python 3 standard library only).

Run from the package folder: `python3 -m unittest discover -s Tests/Layers -v`.
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check_layers.py"

# A clean library: each folder uses only names declared in folders to its left, and a target imports only what it
# may. Names of higher folders appear only in comments, in strings and after `.`, which are not references.
CLEAN = {
    "Sources/SubscriptionSimulator/Engine/Instant.swift": """
        /// A point in time. Not a `ScenarioRunner`.
        public struct Instant: Hashable {
            var milliseconds: Int64
        }
        func clamp(_ value: Int) -> Int { value }
        """,
    "Sources/SubscriptionSimulator/Store/SimulatedStore.swift": """
        public struct SimulatedStore {
            var now: Instant  // an Engine name: allowed
            var label = "ScenarioRunner \\\"quoted\\\" runs"
            var raw = #"ScenarioRunner"#
            var block = \"\"\"
                ScenarioRunner
                \"\"\"
            func describe() -> String { "at \\(now.milliseconds)" }
            /* ScenarioRunner /* nested */ ScenarioRunner */
            func run(scenarioRunner: Int) -> Int { clamp(scenarioRunner) }
        }
        """,
    "Sources/SubscriptionSimulator/Scenario/ScenarioRunner.swift": """
        public struct ScenarioRunner {
            var store: SimulatedStore
        }
        extension SimulatedStore {
            func runner() -> ScenarioRunner { ScenarioRunner(store: self) }
        }
        """,
    "Sources/SimctlHTTP/HTTPServer.swift": """
        import Foundation
        public struct HTTPServer {}
        """,
    "Sources/SimctlServer/Routes.swift": """
        import SimctlHTTP
        import SubscriptionSimulator
        struct Routes {}
        """,
}


def write(root, files):
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = text.split("\n")
        indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
        path.write_text("\n".join(line[indent:] for line in lines).strip() + "\n", encoding="utf-8")


def check(files):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write(root, files)
        result = subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True)
        return result.returncode, result.stdout


class CheckLayersTests(unittest.TestCase):
    def test_a_clean_tree_passes_with_a_summary(self):
        status, output = check(CLEAN)
        self.assertEqual(status, 0, output)
        self.assertEqual(output.strip().splitlines()[-1], "layers: 3 files, 3 references, 0 back edges")

    def test_a_reference_to_a_higher_folder_is_a_back_edge(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Engine/Clock.swift"] = """
            struct Clock {
                var runner: ScenarioRunner?
            }
            """
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Sources/SubscriptionSimulator/Engine/Clock.swift:2: Engine references ScenarioRunner declared "
                      "in Scenario, which is above it (order: Engine < Catalog", output)
        self.assertIn("1 back edges", output)

    def test_a_back_edge_and_a_bad_import_fail_the_check_together(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Engine/Clock.swift"] = "struct Clock { var store: SimulatedStore }\n"
        files["Sources/SimctlHTTP/HTTPDelivery.swift"] = "import SimctlServer\n"
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Engine/Clock.swift:1: Engine references SimulatedStore declared in Store", output)
        self.assertIn("SimctlHTTP/HTTPDelivery.swift:1: SimctlHTTP imports SimctlServer", output)
        self.assertEqual(output.strip().splitlines()[-1], "layers: 4 files, 4 references, 2 back edges")

    def test_a_top_level_function_of_a_higher_folder_is_a_back_edge(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Scenario/Start.swift"] = "func startThread() {}\n"
        files["Sources/SubscriptionSimulator/Store/Spawn.swift"] = "func spawn() { startThread() }\n"
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Store/Spawn.swift:1: Store references startThread declared in Scenario", output)

    def test_an_extension_of_a_higher_folders_type_is_a_back_edge(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Family/FamilySharing.swift"] = """
            extension SimulatedStore {
                mutating func share() {}
            }
            """
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Family/FamilySharing.swift:1: Family extends SimulatedStore declared in Store, which is above "
                      "it", output)

    def test_an_import_the_order_forbids_is_named(self):
        files = dict(CLEAN)
        files["Sources/SimctlHTTP/HTTPDelivery.swift"] = "import Foundation\nimport SubscriptionSimulator\n"
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Sources/SimctlHTTP/HTTPDelivery.swift:2: SimctlHTTP imports SubscriptionSimulator", output)

    def test_networking_outside_the_https_transport_is_named(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Engine/Net.swift"] = (
            "#if canImport(FoundationNetworking)\n    import FoundationNetworking\n#endif\n")
        files["Sources/SimctlURLSessionDelivery/HTTPSDelivery.swift"] = (
            "import FoundationNetworking\nimport SubscriptionSimulator\n")
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Engine/Net.swift:2: SubscriptionSimulator imports FoundationNetworking, which only "
                      "SimctlURLSessionDelivery may import", output)
        self.assertNotIn("HTTPSDelivery.swift", output)

    def test_a_folder_outside_the_order_is_named(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Misc/Helpers.swift"] = "struct Helper {}\n"
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("folder Misc is not in the order", output)

    def test_the_store_naming_the_parallel_run_crosses_the_seam(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Run/Parts/PartFile.swift"] = "struct PartFile { var key: OrderKey? }\n"
        files["Sources/SubscriptionSimulator/Engine/OrderKey.swift"] = "struct OrderKey {}\n"
        files["Sources/SubscriptionSimulator/Store/Groups.swift"] = "/// Read by `PartFile` when it merges.\nstruct Groups {}\n"
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Store/Groups.swift:1: Store names PartFile of Run/Parts", output)

    def test_the_parallel_run_reaching_into_the_store_crosses_the_seam(self):
        files = dict(CLEAN)
        files["Sources/SubscriptionSimulator/Run/Parts/Keys.swift"] = """
            struct Keys {
                func keys(_ store: SimulatedStore) -> Int { store.emissions.count }
            }
            """
        status, output = check(files)
        self.assertEqual(status, 1, output)
        self.assertIn("Run/Parts/Keys.swift:2: Run/Parts reaches into the store (emissions)", output)
        files["Sources/SubscriptionSimulator/Run/Parts/Keys.swift"] = """
            struct Keys {
                func keys(_ store: SimulatedStore) -> Int { store.orderKeyCount }
            }
            """
        status, output = check(files)
        self.assertEqual(status, 0, output)

    def test_order_prints_the_folders_and_the_targets(self):
        result = subprocess.run([sys.executable, str(SCRIPT), "--order"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0)
        self.assertIn("Engine < Catalog < Lifecycle < Family < Store", result.stdout)
        self.assertIn("SubscriptionSimulator: SimctlCrypto", result.stdout)

    def test_readme_quotes_the_order(self):
        readme = SCRIPT.parents[2] / "README.md"
        order = subprocess.run([sys.executable, str(SCRIPT), "--order"], capture_output=True, text=True).stdout
        folders = order.splitlines()[1]
        self.assertIn(folders, " ".join(readme.read_text(encoding="utf-8").split()),
                      "README.md's Layout section must quote the order `check_layers.py --order` prints")


if __name__ == "__main__":
    unittest.main()
