#!/bin/bash
# The engine-only build's instruction-set choice (GOMOKU_ENGINE_ISA, cmake/engine_only.cmake):
# simulations per CPU-second of the generic build (no -mavx2 -mfma outside the forward's kernels,
# which pick AVX2 at run time) against the AVX2 build, the same search on the same position,
# rounds alternating, one run; prints each round, the medians and the ratio generic / avx2.
# Not a test (docs/benchmarks.md "Engine-only builds: generic against AVX2").
#
#   usage: bench/engine_isa_ratio.sh GENERIC_ANALYZE AVX2_ANALYZE [NET] [ROUNDS] [VISITS]
#   build: cmake -S . -B build-isa-generic -DCMAKE_BUILD_TYPE=Release -DGOMOKU_WITH_TORCH=OFF \
#                -DGOMOKU_ENGINE_ISA=generic && cmake --build build-isa-generic --target analyze
#          (and build-isa-avx2 with -DGOMOKU_ENGINE_ISA=avx2)
#
# Each round runs `analyze` on one query (a 3-stone position, maxVisits VISITS, the engine's
# search: batched leaves, the threat solver, the native forward) and counts its simulations per
# CPU-second (user + system time of the process, loading the net included: ~0.1 s of several).
set -euo pipefail
[ $# -ge 2 ] || { sed -n 8p "$0" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
generic="$1" avx2="$2"
net="${3:-$root/nets/gz-15x15-freestyle-2026-12-06.pt}"
rounds="${4:-5}" visits="${5:-20000}"
exec /usr/bin/python3 - "$generic" "$avx2" "$net" "$rounds" "$visits" <<'EOF'
import json, resource, statistics, subprocess, sys
generic, avx2, net, rounds, visits = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
query = json.dumps({"id": "bench", "moves": [["B", "7,7"], ["W", "8,8"], ["B", "8,7"]], "maxVisits": visits}) + "\n"

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def once(binary):  # simulations per CPU-second of the child (other load on the machine counts less)
    t0 = cpu()
    out = subprocess.run([binary, "--weights", net], input=query, capture_output=True, text=True, check=True).stdout
    seconds = cpu() - t0
    sims = json.loads(out.splitlines()[-1])["rootInfo"]["visits"]
    return sims / seconds

rates = {"generic": [], "avx2": []}
for r in range(rounds):
    for name, binary in (("generic", generic), ("avx2", avx2)) if r % 2 == 0 else (("avx2", avx2), ("generic", generic)):
        rates[name].append(once(binary))
    print(f"round {r + 1}: generic {rates['generic'][-1]:,.0f} sims/CPU-s, avx2 {rates['avx2'][-1]:,.0f} sims/CPU-s", flush=True)
g, a = statistics.median(rates["generic"]), statistics.median(rates["avx2"])
print(f"median: generic {g:,.0f} sims/CPU-s, avx2 {a:,.0f} sims/CPU-s; generic / avx2 = {g / a:.3f} ({(1 - g / a) * 100:+.1f}% slower)")
EOF
