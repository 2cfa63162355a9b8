#!/usr/bin/env python3
"""Check the CPU kernels' machine code for the two faults that cost AVX2 machines 4-28x.

Usage: check_codegen.py PATH...   (the library's objects, or folders holding them; only
                                    src/kernels/cpu's are read)

1. A vector-width template compiled without vector registers. A template instantiated with
   the same arguments from the baseline and an AVX2 entry point (dense_row<8> from both) is
   one function; where it is not inlined (a lambda inside it, say) it is compiled for the
   baseline, and the AVX2 entry point calls that: its vectors of 8 floats become pairs of
   SSE halves through memory. Flagged: a function of the kernels, not named *_base, whose
   name has a template argument list starting with 8 or 16 (or is a lambda of one), of 200
   instructions or more, with no ymm or zmm register in it.
2. Accumulators in memory: a function named *_avx2 or *_avx512 in which over a third of the
   FMAs take an operand from the stack (an array of accumulators indexed by a run-time count,
   more accumulators than registers), or in which two or more stack slots are accumulators:
   an FMA adds into a slot's value and a store within the next few instructions puts the
   sum back in the same slot (a hot loop with a few accumulators more than the registers
   hold: the first conv's flat loop kept 5 of 16 there, AVX2's GEMM edge rows 26).

Prints each finding and exits 1 when there is one; needs objdump (binutils) and an
optimised build (at -O0 or -O1 nothing is inlined and everything would be flagged).
"""
import glob
import os
import re
import subprocess
import sys

WIDTH_TEMPLATE = re.compile(r"<(8|16)[,>]")
# An FMA whose addend or multiplicand comes from a stack slot, its result in a register.
FMA_FROM_STACK = re.compile(r"vfn?m(?:add|sub)\d+ps\s+(-?0x[0-9a-f]+)?\(%rsp\),%[yz]mm\d+,%([yz]mm\d+)")


# A vector loaded from a stack slot.
LOAD_FROM_STACK = re.compile(r"vmov(?:aps|ups)\s+(-?0x[0-9a-f]+)?\(%rsp\),%([yz]mm\d+)")


def stack_accumulators(lines):
    """The stack slots that hold an FMA's running sum: an FMA reads the slot (or a register
    just loaded from it) and, within the next 8 instructions, its sum is stored back there."""
    slots = set()
    for i, line in enumerate(lines):
        m = FMA_FROM_STACK.search(line)
        if m:
            off, reg, after = m.group(1) or "", m.group(2), lines[i + 1:i + 9]
        else:
            m = LOAD_FROM_STACK.search(line)
            if not m:
                continue
            off, reg = m.group(1) or "", m.group(2)
            fma = next((j for j in range(i + 1, min(i + 4, len(lines)))
                        if re.search(r"vfn?m(?:add|sub)\d+ps\s+.*,%" + reg + r"$", lines[j].strip())), None)
            if fma is None:
                continue
            after = lines[fma + 1:fma + 9]
        store = re.compile(r"vmov(?:aps|ups)\s+%" + reg + r"," + re.escape(off) + r"\(%rsp\)")
        if any(store.search(later) for later in after):
            slots.add(off or "0x0")
    return slots


def functions(obj):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", obj], capture_output=True, text=True,
                         check=True).stdout
    for chunk in re.split(r"\n(?=[0-9a-f]{16} <)", out):
        m = re.match(r"[0-9a-f]{16} <(.*)>:", chunk)
        if m:
            yield m.group(1), chunk.split("\n")[1:]


def findings(obj):
    for name, lines in functions(obj):
        if "ge::cpu" not in name:
            continue
        vector = [l for l in lines if "%ymm" in l or "%zmm" in l]
        head = name.replace("(anonymous namespace)", "anon").split("(")[0]
        if (WIDTH_TEMPLATE.search(name) and not re.search(r"_base\b|_base<", head) and len(lines) >= 200
                and not vector):
            yield f"{name[:160]}: {len(lines)} instructions, no ymm/zmm register (compiled for the baseline?)"
        if re.search(r"_(avx2|avx512)\b|_(avx2|avx512)<", head):
            fma = [l for l in lines if "vfmadd" in l or "vfnmadd" in l]
            spilled = [l for l in fma if "(%rsp)" in l]
            if len(fma) >= 24 and 3 * len(spilled) > len(fma):
                yield f"{name[:160]}: {len(spilled)} of {len(fma)} FMAs read the stack (accumulators in memory?)"
            elif len(slots := stack_accumulators(lines)) >= 2:
                yield f"{name[:160]}: {len(slots)} stack slots are FMA accumulators (more than the registers hold?)"


def main(args):
    paths = []
    for a in args:
        paths += glob.glob(os.path.join(a, "**", "*.o"), recursive=True) if os.path.isdir(a) else [a]
    objs = [p for p in paths if "kernels/cpu/" in p.replace("\\", "/")]
    if not objs:
        sys.exit("check_codegen: no object of src/kernels/cpu among the arguments")
    bad = 0
    for obj in sorted(objs):
        for f in findings(obj):
            print(f"{obj.rsplit('/', 1)[-1]}: {f}")
            bad += 1
    print(f"check_codegen: {len(objs)} kernel objects, {bad} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
