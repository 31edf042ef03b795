"""Resource counts and longest LUT chain of a yosys JSON netlist (after synth_xilinx).

Registers (FD*), RAMs and ports end paths; LUTs, MUXF and CARRY cells add one level each.
"""
import json
import sys
from functools import lru_cache

path, top = sys.argv[1], sys.argv[2]
mod = json.load(open(path))["modules"][top]
cells = mod["cells"]
count = {"LUT": 0, "FF": 0, "BRAM": 0, "DSP": 0}
driver = {}  # net bit -> combinational cell name
inputs = {}  # cell name -> input net bits
for name, c in cells.items():
    t = c["type"]
    if t.startswith("LUT"):
        count["LUT"] += 1
    elif t.startswith("FD"):
        count["FF"] += 1
    elif t.startswith("RAMB"):
        count["BRAM"] += 1
    elif t.startswith("DSP"):
        count["DSP"] += 1
    comb = t.startswith(("LUT", "MUXF", "CARRY"))
    if not comb:
        continue
    dirs = c.get("port_directions", {})
    inputs[name] = [b for p, bits in c["connections"].items() if dirs.get(p) == "input" for b in bits]
    for p, bits in c["connections"].items():
        if dirs.get(p) == "output":
            for b in bits:
                driver[b] = name

sys.setrecursionlimit(100000)


@lru_cache(maxsize=None)
def depth(cell):
    d = 0
    for b in inputs[cell]:
        src = driver.get(b)
        if src is not None:
            d = max(d, depth(src))
    return d + 1


levels = max((depth(c) for c in inputs), default=0)
print("%-22s %8d %8d %6d %6d %10d" % (top, count["LUT"], count["FF"], count["BRAM"], count["DSP"], levels))
