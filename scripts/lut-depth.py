"""Resource counts and longest LUT chain of a yosys JSON netlist (after synth_xilinx).

Registers (FD*), RAMs and ports end paths; LUTs and MUXF cells add one level each, and a run
of CARRY cells along a path (one adder's carry chain) adds one level: a CARRY8 stage is a few
tens of picoseconds, far less than a LUT and its routing.
With a third argument N, also prints the N deepest paths' cells with their Verilog source
lines (the `src` attribute), to find what to pipeline.
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


def is_carry(cell):
    return cells[cell]["type"].startswith("CARRY")


@lru_cache(maxsize=None)
def depth(cell):
    d = 0
    for b in inputs[cell]:
        src = driver.get(b)
        if src is not None:
            # A carry fed by a carry continues the same chain.
            d = max(d, depth(src) - (1 if is_carry(cell) and is_carry(src) else 0))
    return d + 1


levels = max((depth(c) for c in inputs), default=0)
print("%-22s %8d %8d %6d %6d %10d" % (top, count["LUT"], count["FF"], count["BRAM"], count["DSP"], levels))

names = {}
for name, n in mod["netnames"].items():
    if name.startswith("$"):
        continue
    for b in n["bits"]:
        names.setdefault(b, name)


def net_name(bits):
    found = sorted({names[b] for b in bits if b in names})
    return ", ".join(found[:3]) or "?"


def outputs_of(cell):
    dirs = cells[cell].get("port_directions", {})
    return [b for p, bits in cells[cell]["connections"].items() if dirs.get(p) == "output" for b in bits]


if len(sys.argv) > 3:
    shown = 0
    ends = sorted(inputs, key=depth, reverse=True)
    seen_src = set()
    for end in ends:
        if shown >= int(sys.argv[3]):
            break
        path, cell = [], end
        while cell is not None:
            path.append(cell)
            srcs = [driver.get(b) for b in inputs[cell]]
            srcs = [x for x in srcs if x is not None]
            cell = max(srcs, key=depth) if srcs else None
        key = cells[end]["attributes"].get("src", end)
        if key in seen_src:
            continue
        seen_src.add(key)
        shown += 1
        print("  path of %d levels, from %s to %s:" % (depth(end), net_name(inputs[path[-1]]), net_name(outputs_of(end))))
        for c in reversed(path):
            src = cells[c]["attributes"].get("src", "")
            where = src.split("|")[0] if "target/" in src else net_name(outputs_of(c))
            print("    %-10s %s" % (cells[c]["type"], where))
