#!/usr/bin/env python3
"""The verdict rules of tools/analysis/adasum_claims.py (issue 62) on made-up studies with known answers.

Run by CTest (AdasumClaimsAnalysis): python3 tests/analysis/adasum_claims_test.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(SOURCE, "tools", "analysis", "adasum_claims.py")
BATCHES = [128, 256, 512, 1024, 2048]


def write_series(root, optimizer, combine, steps, replicated, lr=0.01):
    """One series' scaling.json (steps per batch size, None: missed) and replicated.json (seeds at 2048)."""
    folder = os.path.join(root, optimizer, combine)
    os.makedirs(os.path.join(folder, "replicated"))
    rows = [{"batch_size": b, "steps_to_result": s, "best_hyperparameters": {"learning_rate": lr} if s else {}}
            for b, s in zip(BATCHES, steps)]
    with open(os.path.join(folder, "scaling.json"), "w") as f:
        json.dump({"workload": "fmnist_mlp", "goal": {"metric": "validation/accuracy", "value": 0.88,
                                                      "higher_is_better": True},
                   "series": [{"name": f"{optimizer}+{combine}", "algorithm": optimizer, "batch_sizes": rows}]}, f)
    with open(os.path.join(folder, "replicated", "replicated.json"), "w") as f:  # None: nothing to replicate at 2048
        json.dump({"results": [{"series": f"{optimizer}+{combine}", "batch_size": 2048,
                                "steps_per_seed": replicated}] if replicated is not None else []}, f)


def run(root, optimizers, spaces=None):
    cmd = [sys.executable, SCRIPT, root, "--optimizers", optimizers] + (["--spaces", spaces] if spaces else [])
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    with open(os.path.join(root, "claims.json")) as f:
        return json.load(f)["claims"], done.stdout


class AdasumClaimsTest(unittest.TestCase):
    def test_wider_scaling_and_fewer_steps_hold_one_without_the_other_holds_in_part(self):
        with tempfile.TemporaryDirectory() as root:
            # The mean stops scaling nearly perfectly after 256 (S(512) = 450 > 2 x 800 x 128 / 512 = 400);
            # Adasum keeps it to 1024 (190 <= 200), not to 2048 (150 > 100).
            write_series(root, "momentum", "mean", [800, 420, 450, 440, 430], [100, 102, 98, 101, 99])
            write_series(root, "momentum", "adasum", [800, 400, 200, 190, 150], [70, 72, 71, 69, 73])
            write_series(root, "momentum", "adasum-delta", [800, 420, 450, 440, 430], [99, 101, 100, 98, 102])
            claims, out = run(root, "momentum")
            self.assertEqual(claims[0]["verdict"], "holds")
            by_series = {s["series"]: s for s in claims[0]["series"]}
            self.assertEqual(by_series["momentum+adasum"]["b_max"], 1024)
            self.assertEqual(by_series["momentum+adasum"]["mean_b_max"], 256)
            point, low, high = by_series["momentum+adasum"]["ratio"]
            self.assertAlmostEqual(point, 71 / 100)
            self.assertLess(high, 1)
            self.assertIn("| holds |", out)
        with tempfile.TemporaryDirectory() as root:
            # Fewer steps at the largest batch (interval below 1), the same B_max: holds in part.
            write_series(root, "adam", "mean", [800, 420, 450, 440, 430], [100, 102, 98, 101, 99])
            write_series(root, "adam", "adasum", [800, 420, 450, 440, 400], [80, 82, 81, 79, 83])
            claims, _ = run(root, "adam")
            self.assertEqual(claims[0]["verdict"], "holds in part")

    def test_the_two_conditions_count_only_when_one_series_meets_both(self):
        with tempfile.TemporaryDirectory() as root:
            # Adasum of gradients scales further (B_max 1024 against 256) but its seeds overlap the
            # mean's; Adasum of steps scales no further but needs fewer steps: holds in part, and
            # the report says that taking the conditions from different series would read "holds".
            write_series(root, "lamb", "mean", [800, 420, 450, 440, 430], [100, 102, 98, 101, 99])
            write_series(root, "lamb", "adasum", [800, 400, 200, 190, 150], [99, 101, 100, 98, 102])
            write_series(root, "lamb", "adasum-delta", [800, 420, 450, 440, 400], [80, 82, 81, 79, 83])
            claims, out = run(root, "lamb")
            self.assertEqual(claims[0]["verdict"], "holds in part")
            self.assertTrue(claims[0]["conditions_met_by_different_series"])
            self.assertIn("would read holds", out)
            by_series = {s["series"]: s for s in claims[0]["series"]}
            self.assertTrue(by_series["lamb+adasum"]["wider"])
            self.assertFalse(by_series["lamb+adasum"]["fewer"])
            self.assertTrue(by_series["lamb+adasum-delta"]["fewer"])

    def test_a_series_whose_study_never_reached_at_the_largest_batch_counts_as_infinitely_many_steps(self):
        with tempfile.TemporaryDirectory() as root:
            # LAMB+Adasum of steps never reached the goal at 2048 in its study (nothing replicated):
            # infinitely many steps, so neither claim can hold through it (it used to read "not yet
            # measured"); Adasum of gradients, which reached where the mean never did, has ratio 0.
            write_series(root, "lamb", "mean", [800, 420, 450, 440, None], None)
            write_series(root, "lamb", "adasum", [800, 400, 450, 440, 430], [70, 72, 71, 69, 73])
            write_series(root, "lamb", "adasum-delta", [800, 420, 450, 440, None], None)
            claims, out = run(root, "lamb")
            by_series = {s["series"]: s for s in claims[0]["series"]}
            self.assertEqual(by_series["lamb+adasum"]["ratio"], [0.0, 0.0, 0.0])
            self.assertTrue(by_series["lamb+adasum"]["fewer"])
            self.assertIsNone(by_series["lamb+adasum-delta"]["ratio"])  # neither reached: no ratio
            self.assertIn("none: neither reached the goal at 2048", out)
            self.assertEqual(claims[1]["verdict"], "does not hold here")
        with tempfile.TemporaryDirectory() as root:
            write_series(root, "lamb", "mean", [800, 420, 450, 440, 430], [100, 102, 98, 101, 99])
            write_series(root, "lamb", "adasum-delta", [800, 420, 450, 440, None], None)
            claims, out = run(root, "lamb")
            self.assertEqual(claims[1]["verdict"], "does not hold here")
            self.assertEqual(claims[1]["ratio"][0], float("inf"))
            self.assertEqual(claims[0]["verdict"], "does not hold here")
            self.assertIn("inf (inf-inf) at 2048", out)

    def test_the_ratio_at_every_batch_size_beside_the_verdicts(self):
        ratios = os.path.join(os.path.dirname(SCRIPT), "adasum_ratios_by_batch.py")
        with tempfile.TemporaryDirectory() as root:
            for o in ("momentum", "adam", "lamb"):
                write_series(root, o, "mean", [800, 420, 450, 440, 430], [100, 102, 98, 101, 99])
                write_series(root, o, "adasum", [800, 400, 200, 190, 150], [70, 72, 71, 69, 73])
                write_series(root, o, "adasum-delta", [800, 420, 450, 440, None], None)
            done = subprocess.run([sys.executable, ratios, root], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            row = next(line for line in done.stdout.splitlines() if line.startswith("| lamb+adasum |"))
            cells = [c.strip() for c in row.strip("|").split("|")]
            self.assertEqual(cells[5], "0.71 (0.69-0.73)")  # 2048: 71 / 100, seeds 69-73 over 98-102
            self.assertEqual(cells[1], "-")  # nothing replicated at 128
            failed = subprocess.run([sys.executable, ratios, os.path.join(root, "none")], capture_output=True, text=True)
            self.assertEqual(failed.returncode, 2)
            self.assertIn("replicated.json", failed.stderr)

    def test_overlapping_seeds_and_equal_scaling_do_not_hold_and_a_missed_smallest_batch_moves_b0(self):
        with tempfile.TemporaryDirectory() as root:
            # Neither series reaches at 128; B0 is 256 for both; the seeds overlap at 2048.
            write_series(root, "momentum", "mean", [None, 400, 210, 220, 190], [100, 80, 120, 95, 105])
            write_series(root, "momentum", "adasum", [None, 400, 210, 220, 190], [90, 110, 100, 85, 115])
            claims, _ = run(root, "momentum")
            self.assertEqual(claims[0]["verdict"], "does not hold here")
            s = claims[0]["series"][0]
            self.assertEqual(s["mean_b_max"], 512)  # B0 = 256: 210 <= 2 x 400 x 256 / 512 = 400, 220 > 200 at 1024
            self.assertGreater(s["ratio"][2], 1)

    def test_lambs_thirty_percent_holds_only_at_a_ratio_of_at_most_08_with_an_interval_below_1(self):
        def lamb(replicated_delta):
            root = tempfile.mkdtemp()
            write_series(root, "lamb", "mean", [800, 420, 450, 440, 430], [100, 101, 99, 100, 100])
            write_series(root, "lamb", "adasum-delta", [800, 420, 450, 440, 430], replicated_delta)
            claims, _ = run(root, "lamb")
            return next(c for c in claims if "20-30%" in c["claim"])["verdict"]
        self.assertEqual(lamb([70, 71, 72, 69, 70]), "holds")
        self.assertEqual(lamb([90, 91, 89, 90, 90]), "holds in part")
        self.assertEqual(lamb([95, 110, 100, 90, 105]), "does not hold here")
        # A seed that never reached counts as infinitely many steps: the median stays, but resamples
        # that draw it three times are infinite, so the interval is unbounded and nothing holds.
        self.assertEqual(lamb([70, None, 72, 69, 70]), "does not hold here")

    def test_a_best_learning_rate_in_the_outer_tenth_of_its_range_is_flagged(self):
        with tempfile.TemporaryDirectory() as root:
            write_series(root, "momentum", "mean", [800, 420, 450, 440, 430], [100] * 5, lr=1.1e-4)
            os.makedirs(os.path.join(root, "spaces"))
            with open(os.path.join(root, "spaces", "momentum.json"), "w") as f:
                json.dump({"learning_rate": {"min": 1e-4, "max": 1.0, "scaling": "log"}}, f)
            _, out = run(root, "momentum", os.path.join(root, "spaces"))
            self.assertIn("at the edge", out)


if __name__ == "__main__":
    unittest.main()
