import json, sys
src, out, spec = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(src))
for part in spec.split(";"):
    prec, cls, params, split = part.split(":")
    e = d["entries"][0]["precisions"][prec]["classes"]
    c = {"KWG": 8, "VWM": 2, "VWN": 2, "SA": 1, "SB": 1, "KWI": 8, "MMA": 2} if prec == "d" else {}
    for kv in params.split(","):
        k, v = kv.split("="); c[k] = int(v)
    c["split_k"] = int(split)
    e[cls] = c
json.dump(d, open(out, "w"), indent=1)
