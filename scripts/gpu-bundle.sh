#!/usr/bin/env bash
# Builds the CUDA tests, the CUDA bench and examples/sgd_mf's device build sgd_mf_gpu with its CPU
# references (sgd_mf.x86-64, sgd_mf_serial.x86-64) and rotor-gen (build/cuda, Release,
# -DROTOR_CUDA=ON) and packs them into DIR with the shared libraries they need beyond glibc
# (cudart is linked statically; the CUDA driver, libcuda.so, comes from the GPU machine), plus
# DIR/run.sh and DIR/README.md.
# Copy DIR to a machine with an NVIDIA driver and run DIR/run.sh: it runs the tests,
# compute-sanitizer (when present) and the bench (k = 32 and 128, Hogwild vs rotation, the
# oversized case, copy bandwidth) and prints one table; without a GPU it prints
# "no GPU: skipped" and exits 0.
# Usage: scripts/gpu-bundle.sh DIR        (scripts/test.sh builds it and runs its run.sh)
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: scripts/gpu-bundle.sh DIR" >&2
  exit 2
fi
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/cuda
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROTOR_CUDA=ON \
  -DROTOR_BUILD_TESTS=ON -DROTOR_BUILD_BENCH=ON -DROTOR_BUILD_FRONTEND=ON \
  -DROTOR_BUILD_EXAMPLES=ON -DROTOR_BUILD_SOUNDNESS=OFF "${launcher[@]}" >/dev/null
# The examples' baseline-ISA builds (no launcher): the GPU machine runs them directly.
sgd_mf=sgd_mf serial=sgd_mf_serial
if grep -q '^ROTOR_ISA_VARIANTS:INTERNAL=TRUE' "$build/CMakeCache.txt"; then
  sgd_mf=sgd_mf.x86-64 serial=sgd_mf_serial.x86-64
fi
cmake --build "$build" --parallel "$(nproc)" --target cuda_sgd_test gpu_schedule_test \
  bench_cuda_sgd cuda_device_loop_test sgd_mf_gpu "$sgd_mf" "$serial" rotor-gen

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
bins=("$build/tests/cuda/cuda_sgd_test" "$build/tests/gpu/gpu_schedule_test"
      "$build/bench/cuda/bench_cuda_sgd" "$build/tests/cuda/cuda_device_loop_test"
      "$build/examples/sgd_mf_gpu" "$build/examples/$sgd_mf" "$build/examples/$serial"
      "$build/examples/rotor-gen")
cp "${bins[@]}" "$out/bin/"
# run.sh names the CPU references without their ISA suffix
[ "$sgd_mf" = sgd_mf ] || mv "$out/bin/$sgd_mf" "$out/bin/sgd_mf"
[ "$serial" = sgd_mf_serial ] || mv "$out/bin/$serial" "$out/bin/sgd_mf_serial"
strip "$out"/bin/*
# Shared libraries beyond glibc's own (libc, libm, libpthread, libdl, librt, libutil, libresolv,
# the loader) and never the driver (libcuda, libnvidia-*: they must match the machine's kernel).
for bin in "${bins[@]}"; do
  ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libutil.so*|libresolv.so*|ld-linux*) ;;
    libcuda.so*|libnvidia-*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
glibc=$(for b in "$out"/bin/*; do objdump -T "$b" "$out"/lib/*.so* 2>/dev/null; done |
  grep -o 'GLIBC_[0-9.]*' | sort -t. -k2,2n -k3,3n -u | tail -1)

cat > "$out/run.sh" <<'RUN'
#!/bin/sh
# Runs Rotor's CUDA tests, compute-sanitizer on a small case (when on PATH) and the CUDA SGD-MF
# bench (k = 32 and 128: Hogwild, rotation, the oversized case under a memory limit, the
# per-wave kernel), then prints one table. Arguments replace the bench's defaults.
# Without a GPU: "no GPU: skipped", exit 0.
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
log="$here/logs"
mkdir -p "$log" 2>/dev/null || log=$(mktemp -d)
# sgd_mf_gpu (examples/sgd_mf built with rotor-cc --device=gpu) against the CPU builds of the same
# source on the same generated data; the RMSEs of every epoch must agree within one unit of the
# 4th printed decimal. Without a GPU its loops run on the CPU (each must say so once) in sgd_mf's order; not
# bitwise: under nvcc Eigen does not vectorize host code (EIGEN_GPUCC), so the dot sums in
# another order than sgd_mf's. With one they run on the GPU in conflict-free waves, an order
# equivalent to the file's, so the reference is the serial build. Prints one summary line;
# exit status 1 when a check failed.
sgd_mf_check() {
  mode=$1; shift
  "$here/bin/rotor-gen" ratings --out "$log/train.csv" --test-out "$log/test.csv" --seed 3 "$@" \
    >"$log/rotor-gen.txt" 2>&1 || { echo "rotor-gen FAILED"; return 1; }
  args="--data $log/train.csv --test $log/test.csv --k 32 --epochs 3 --model none"
  ref=sgd_mf; [ "$mode" = gpu ] && ref=sgd_mf_serial
  # shellcheck disable=SC2086
  limit 120 "$here/bin/$ref" $args >"$log/$ref.txt" 2>&1 || { echo "$ref FAILED"; return 1; }
  # shellcheck disable=SC2086
  limit 120 "$here/bin/sgd_mf_gpu" $args >"$log/sgd_mf_gpu.txt" 2>"$log/sgd_mf_gpu.err" ||
    { echo "sgd_mf_gpu FAILED: $(tail -1 "$log/sgd_mf_gpu.err")"; return 1; }
  rmses() { grep -o '_rmse=[0-9.]*' "$1" | tr '\n' ' '; }
  rate() { grep '^final ' "$1" | grep -o 'updates_per_s=[^ ]*' | cut -d= -f2; }
  rates="updates_per_s: sgd_mf_gpu $(rate "$log/sgd_mf_gpu.txt"), $ref $(rate "$log/$ref.txt")"
  cpu_notes=$(grep -c 'device(gpu) loop at .* runs on the CPU' "$log/sgd_mf_gpu.err")
  if [ "$mode" = cpu ] && [ "$(grep -c 'rotor: no CUDA device; device(gpu) loop at ' \
      "$log/sgd_mf_gpu.err")" -lt 1 ]; then
    echo "FAILED: sgd_mf_gpu did not say its loops run on the CPU"; return 1
  fi
  if [ "$mode" = gpu ] && [ "$cpu_notes" -gt 0 ]; then
    echo "FAILED: $(grep 'runs on the CPU' "$log/sgd_mf_gpu.err" | head -1)"; return 1
  fi
  # within one unit of the last printed decimal (the two sum the dot product in other orders)
  if [ -z "$(rmses "$log/sgd_mf_gpu.txt")" ] || ! echo "$(rmses "$log/sgd_mf_gpu.txt")|$(rmses \
      "$log/$ref.txt")" | awk -F'|' '{ n = split($1, a, " "); m = split($2, b, " ");
        if (n != m) exit 1; for (i = 1; i <= n; i++) { sub(/_rmse=/, "", a[i]); sub(/_rmse=/, "", b[i]);
        d = a[i] - b[i]; if (d < 0) d = -d; if (d > 0.000101) exit 1 } }'; then
    echo "FAILED: RMSEs $(rmses "$log/sgd_mf_gpu.txt")vs $ref $(rmses "$log/$ref.txt")"; return 1
  fi
  echo "ok: RMSEs of every epoch within 1e-4 of $ref's ($cpu_notes loops on the CPU); $rates"
}
# A hang must not eat a GPU machine's few minutes: every step has a time limit (exit 124).
limit() { if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi; }
if ! device=$("$here/bin/bench_cuda_sgd" --probe 2>&1); then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "GPU present but CUDA unusable: $device"
    nvidia-smi -L
    exit 1
  fi
  # the bench's host side (schedules, memory plan) still runs, so CI exercises it
  if ! "$here/bin/bench_cuda_sgd" --mode=schedule --users=3000 --items=2000 --ratings=60000 \
      --k=32,128 --epochs=2 >"$log/schedule.txt" 2>&1; then
    cat "$log/schedule.txt"
    echo "no GPU, and the bench's host side (--mode=schedule) FAILED"
    exit 1
  fi
  if ! cpu=$(sgd_mf_check cpu --users 2000 --items 800 --ratings 40000); then
    echo "no GPU, and sgd_mf_gpu's CPU fallback check $cpu"
    exit 1
  fi
  echo "no GPU: skipped ($device); bench --mode=schedule ok; sgd_mf_gpu $cpu"
  exit 0
fi
if [ $# -eq 0 ]; then
  set -- --users=480189 --items=17770 --ratings=10000000 --k=32,128 --epochs=5 --blocks=4
fi
status=0
rows=""
row() { rows="$rows$(printf '%-28s %-8s %s' "$1" "$2" "$3")
"; }
for t in gpu_schedule_test cuda_sgd_test cuda_device_loop_test; do
  start=$(date +%s)
  if limit 120 "$here/bin/$t" >"$log/$t.txt" 2>&1; then result=ok; else result="FAIL($?)"; status=1; fi
  passed=$(grep -o 'PASSED  \] [0-9]*' "$log/$t.txt" | grep -o '[0-9]*$')
  skipped=$(grep -o 'SKIPPED \] [0-9]* test' "$log/$t.txt" | grep -o '[0-9]*' | head -1)
  if [ -n "$skipped" ] && [ "$t" = cuda_sgd_test ]; then result=SKIPPED; status=1; fi
  row "$t" "$result" "passed=${passed:-0} skipped=${skipped:-0} seconds=$(( $(date +%s) - start ))"
done
small="--users=3000 --items=2000 --ratings=60000 --k=32 --epochs=1 --copy-mib=0"
if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck; do
    # shellcheck disable=SC2086
    if limit 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$here/bin/bench_cuda_sgd" \
        $small >"$log/sanitizer-$tool.txt" 2>&1; then result=ok; else result="FAIL($?)"; status=1; fi
    row "compute-sanitizer $tool" "$result" "$(tail -1 "$log/sanitizer-$tool.txt")"
  done
else
  row "compute-sanitizer" "absent" "not on PATH: not run"
fi
if gpu_check=$(sgd_mf_check gpu --users 480189 --items 17770 --ratings 2000000); then
  row "sgd_mf_gpu vs sgd_mf_serial" ok "$gpu_check"
else
  row "sgd_mf_gpu vs sgd_mf_serial" FAIL "$gpu_check"; status=1
fi
if limit 300 "$here/bin/bench_cuda_sgd" "$@" >"$log/bench.txt" 2>&1; then
  bench=ok
else
  bench="FAIL($?)"; status=1
fi
cat "$log/bench.txt"
echo
echo "== Rotor CUDA bundle: $device"
printf '%-28s %-8s %s\n' "what" "result" "detail"
printf '%s' "$rows"
field() { grep "^$1:" "$log/bench.txt" | sed "s/^$1: //"; }
printf '%-28s %-8s %s\n' "bench_cuda_sgd" "$bench" "$*"
printf '%-28s %-8s %s\n' "  data" "" "$(field data)"
printf '%-28s %-8s %s\n' "  schedule" "" "$(field schedule)"
grep '^final ' "$log/bench.txt" | while read -r _ k mode _ rest; do
  printf '%-28s %-8s %s\n' "  $k $mode" "" "$rest"
done
printf '%-28s %-8s %s\n' "  device-to-device copy" "" "$(field d2d_copy)"
echo "logs: $log"
exit $status
RUN
chmod +x "$out/run.sh"

cat > "$out/README.md" <<README
# Rotor CUDA bundle

Built by \`scripts/gpu-bundle.sh\` from Rotor $(git -C "$root" rev-parse --short HEAD) on
$(date -u +%Y-%m-%d) (CUDA $(/usr/local/cuda/bin/nvcc --version | grep -o 'release [0-9.]*' | cut -d' ' -f2), code for sm_90 (H100) and compute_90 PTX).

Needs: Linux x86-64 with glibc providing ${glibc:-GLIBC_2.34} symbols and an NVIDIA driver for
CUDA 13 (580 or newer). Nothing else: the CUDA runtime is linked statically and \`lib/\` holds the
other shared libraries (libstdc++, libgcc_s, and for the sgd_mf builds MPI, TBB and HDF5). No
compiler.

\`\`\`sh
./run.sh             # tests, sanitizers, sgd_mf_gpu vs sgd_mf_serial, bench: 480189 x 17770,
                     # 10M ratings, k = 32 and 128
./run.sh --ratings=100000000 --users=480189 --items=17770 --k=32,128 --epochs=8 --blocks=8
\`\`\`

It prints the bench's output, then one table: the host schedule and memory plan tests
(\`gpu_schedule_test\`), the CUDA tests (\`cuda_sgd_test\`: the wave kernels bitwise equal to
the host's serial replay, the dataflow kernel and the streamed run under a memory limit bitwise
equal to it, error kernel, Hogwild learns), compute-sanitizer memcheck and racecheck on a small bench run (when
compute-sanitizer is on PATH), then per k the bench's updates/s, test RMSE and time to Hogwild's
final test RMSE for hogwild, rotation (one block, with vs_hogwild), dataflow (rotation's
order without wave barriers, bitwise_equal_to_rotation), blocked (B x B blocks in
memory), streamed (the blocked order under a memory limit, the oversized case: limit, slots,
bytes moved, vs_blocked, bitwise_equal_to_blocked) and waves, and the device-to-device copy
bandwidth. Exit status 0 when everything passed. Logs are in \`logs/\`.

Without a GPU it runs the bench's host side on a small case (\`--mode=schedule\`: schedules and
a replayed memory plan), prints \`no GPU: skipped (...)\` and exits 0 (1 if that failed); with a GPU that CUDA cannot use
(e.g. a driver older than CUDA 13) it prints \`GPU present but CUDA unusable: ...\` and exits 1.

| file | what |
|---|---|
| \`bin/gpu_schedule_test\` | host wave schedule and block order tests (no GPU needed) |
| \`bin/cuda_sgd_test\` | CUDA kernel tests (GoogleTest; skip without a device) |
| \`bin/cuda_device_loop_test\` | device loops through the runtime: a __host__ __device__ body run by the GPU executor vs the serial run (without a GPU: the CPU fallback) |
| \`bin/sgd_mf_gpu\`, \`bin/sgd_mf\`, \`bin/sgd_mf_serial\`, \`bin/rotor-gen\` | examples/sgd_mf built with \`rotor-cc --device=gpu\`, with rotor-cc for CPUs and serially, and the data generator: run.sh compares them |
| \`bin/bench_cuda_sgd\` | SGD-MF bench; flags: --users= --items= --ratings= --k=N[,N] --epochs= --lr= --reg= --skew= --seed= --blocks= --target-rmse= --rotor-gpu-memory=BYTES --mode=all\\|hogwild\\|rotation\\|dataflow\\|blocked\\|streamed\\|waves\\|schedule --copy-mib= |
| \`lib/\` | shared libraries beyond glibc |
README
echo "bundle: $out ($(du -sh "$out" | cut -f1))"
ls -l "$out" "$out/bin" "$out/lib"
