#!/usr/bin/env python3
"""tune_seed_reach.py IN OUT -- copies a tuning database whose medium class runs the large
class's configuration and gives medium a split of 2, so that the two differ and clhgemm-tune's
large-reach phase (tools/tune_classes.c tune_large_reach) times both (test tune_run_large_reach).
Exit 1 when IN has no entry with a large class."""
import json
import sys

with open(sys.argv[1]) as f:
    db = json.load(f)
seeded = 0
for entry in db.get("entries", []):
    for prec in entry.get("precisions", {}).values():
        classes = prec.get("classes", {})
        if "large" not in classes:
            continue
        medium = dict(classes["large"])
        for key in ("k_min", "wgs_per_cu", "m", "n", "k", "gflops"):
            medium.pop(key, None)
        medium["split_k"] = 2
        classes["medium"] = medium
        seeded += 1
with open(sys.argv[2], "w") as f:
    json.dump(db, f, indent=1)
sys.exit(0 if seeded else 1)
