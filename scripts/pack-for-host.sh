#!/usr/bin/env bash
# Builds, here, what a machine without Rust needs to run the tests and the
# measurements (the lent 16-core Xeon, say): the release test binaries that
# need no toolchain at run time, the matrix_multiply example and the test
# vectors, stripped and packed into target/host-pack/pack.tgz (about 16 MiB),
# with run.sh beside them. There:
#
#   mkdir -p /tmp/p && tar xzf target/host-pack/pack.tgz -C /tmp/p &&
#     /tmp/p/run.sh tests compare "sweep 1,16"
#
# run.sh runs each step it is given, in order: `tests` (every binary, every
# kernel copy the CPU has, then `copies_this_cpu_runs`'s list of them),
# `compare` (`matrix_multiply --compare --budget 3`), `sweep COUNTS`
# (`--sweep COUNTS --size 2048 --budget 5`), or any other word as
# matrix_multiply's arguments (`"--sweep 1,16 --policy f32_32x32x2f32"`).
# Output goes to $OUT (or the current folder) as one log a step.
#
# Left out: the UI and toolchain tests (they run cargo), mfma-hip's runtime
# tests (they build a stand-in HIP library with rustc), mfma-macros' own and
# the CLI's and device check's (they run binaries by their build paths).
set -euo pipefail
cd "$(dirname "$0")/.."
vectors=${MFMA_SHARED:-../shared}/vectors
[ -d "$vectors" ] || { echo "pack-for-host: no vector files at $vectors (set MFMA_SHARED)" >&2; exit 1; }

pack=target/host-pack
rm -rf "$pack" && mkdir -p "$pack/root/bin" "$pack/root/vectors"
cargo build --release -p mfma-gemm --example matrix_multiply
strip -o "$pack/root/bin/matrix_multiply" target/release/examples/matrix_multiply
cargo test --workspace --release --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
skip = {("tests", "ui"), ("tests", "toolchain"), ("mfma-hip", "runtime")}
skip_packages = {"mfma-macros", "mfma-cli", "mfma-device-check"}
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    package = m["package_id"].split("#")[0].rstrip("/").split("/")[-1]
    if package in skip_packages or (package, m["target"]["name"]) in skip:
        continue
    print(m["executable"])
' | while read -r exe; do strip -o "$pack/root/bin/$(basename "$exe")" "$exe"; done
cp "$vectors"/cdna2-numerics.json "$vectors"/cdna3-numerics.json "$vectors"/cdna3-smfmac.json "$pack/root/vectors/"

cat > "$pack/root/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs the packed tests and measurements; see scripts/pack-for-host.sh.
# (pipefail: a test binary that fails, or aborts before its summary, fails
# its step even though grep has lines to print.)
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD}
export MFMA_VECTORS_CDNA2=$here/vectors/cdna2-numerics.json
export MFMA_VECTORS_CDNA3=$here/vectors/cdna3-numerics.json
export MFMA_VECTORS_CDNA3_SMFMAC=$here/vectors/cdna3-smfmac.json
{ lscpu; head -1 /proc/stat; } > "$out/cpu.txt" 2>&1
status=0
for step in "$@"; do
  start=$(date +%s)
  case $step in
    tests)
      for b in "$here"/bin/*-*; do
        echo "== $(basename "$b")"
        "$b" -q 2>&1 | grep -E 'test result|FAILED|panicked' || status=1
      done > "$out/tests.log"
      "$here"/bin/mfma_core-* copies_this_cpu_runs --nocapture >> "$out/tests.log" 2>&1 || status=1
      grep -q 'FAILED\|panicked' "$out/tests.log" && status=1 ;;
    compare) "$here/bin/matrix_multiply" --compare --budget 3 > "$out/compare.log" 2>&1 || status=1 ;;
    sweep\ *) "$here/bin/matrix_multiply" --sweep "${step#sweep }" --size 2048 --budget 5 \
                > "$out/sweep.log" 2>&1 || status=1 ;;
    *) # shellcheck disable=SC2086
       "$here/bin/matrix_multiply" $step > "$out/run-$start.log" 2>&1 || status=1 ;;
  esac
  echo "$step: $(( $(date +%s) - start )) s"
done
head -1 /proc/stat
exit $status
EOF
chmod +x "$pack/root/run.sh"
tar czf "$pack/pack.tgz" -C "$pack/root" .
rm -rf "$pack/root"
echo "pack-for-host: $pack/pack.tgz ($(du -h "$pack/pack.tgz" | cut -f1))"
