"""The sample integrations of examples/ (the ones the README shows and the type checkers check) run against the local
service, each with a key of its own (keys 10 and 11 of VIDEO_SERVICE_KEYS), and end 0."""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def run_example(name: str, key: str) -> "subprocess.CompletedProcess[str]":
    env = {**os.environ, "VIDEO_SERVICE_KEY": key, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", name)], env=env, capture_output=True, text=True, timeout=300)


class ExamplesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.keys = json.loads(os.environ["VIDEO_SERVICE_KEYS"])

    def test_the_sync_integration_orders_reviews_and_lists(self) -> None:
        r = run_example("integration.py", self.keys[10])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"'Green tea, three cups a day' costs 100 doubloons \(base 100\)\n")
        self.assertRegex(r.stdout, r"vid_\w+: done http")
        self.assertRegex(r.stdout, r"done: vid_\w+ Green tea, three cups a day\n")

    def test_the_async_integration_runs_three_orders_and_reads_every_list(self) -> None:
        r = run_example("integration_async.py", self.keys[11])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.count(": done http"), 3, r.stdout)
        self.assertEqual(len([line for line in r.stdout.splitlines() if line.startswith("done: vid_")]), 3)
        self.assertIn("charged 300 doubloons in all", r.stdout)
        self.assertIn("0 assets", r.stdout)


if __name__ == "__main__":
    unittest.main()
