#!/usr/bin/env bash
# Builds the device path for each GPU target and checks it without a GPU.
#
# Usage (from anywhere):
#   bash scripts/check-device.sh            # every target of every architecture
#   bash scripts/check-device.sh gfx942     # one target
#   CODE_OBJECT_VERSION=6 bash scripts/check-device.sh   # v6 code objects (ROCm >= 6.3)
#
# Per target (gfx90a: CDNA2, gfx942: CDNA3):
#  1. compiles mfma-kernels for amdgcn-amd-amdhsa with -C target-cpu=<gfx>
#     (-D warnings, every crate with -Cpanic=immediate-abort): one call-site
#     kernel per builtin of the target's architecture and one GEMM kernel per
#     catalog policy of it, all generated from the spec and the catalog by
#     mfma-kernels/build.rs, which also writes the manifest of what each
#     kernel must compile to;
#  2. leaves the code object in target/device/<gfx>/mfma_kernels.hsaco (code
#     object v5 unless CODE_OBJECT_VERSION says 6), the manifest beside it
#     (kernels.tsv) and the assembly in target/device-asm/<gfx>/;
#  3. runs mfma-device-check on the three: instructions and modifiers, the
#     GEMM kernels' K loop (MFMA, LDS reads and writes, waited barrier), no
#     scratch, the code object's metadata and occupancy; plans every
#     kernel's launch as mfma-hip (the HIP launcher) would, from the same
#     files; prints one line per kernel (also in target/device/<gfx>/check.txt);
#  4. builds the wrong-arch kernels (builtins of another architecture) and
#     requires the build to fail with mfma-core's message naming the right
#     builtin, not LLVM's "Cannot select";
#  5. where clang with the AMDGPU backend is installed (clang-14, Debian's
#     `apt-get install clang-14`) and the target is one it knows (gfx90a),
#     compiles the equivalent HIP kernels (mfma-kernels/hip/reference.hip)
#     and compares one kernel's metadata field by field.
#
# Output paths are under $CARGO_TARGET_DIR when it is set.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

say() { echo "check-device: $*"; }
fail() {
  echo "check-device: FAILED: $*" >&2
  exit 1
}

target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
cov="${CODE_OBJECT_VERSION:-5}"
case "$cov" in 5 | 6) ;; *) fail "CODE_OBJECT_VERSION must be 5 or 6, not $cov" ;; esac

# -Zbuild-std compiles core from source for the GPU target.
if ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  say "installing rust-src"
  rustup component add rust-src
fi

say "building the checker (mfma-device-check, host)"
CARGO_TARGET_DIR="$target_dir" cargo build -q -p mfma-device-check ||
  fail "mfma-device-check did not build"
checker="$target_dir/debug/mfma-device-check"

# The targets of every architecture of the spec, unless named.
all_targets="$("$checker" targets | tr '\n' ' ')"
if [ $# -gt 0 ]; then
  targets="$*"
  for t in $targets; do
    case " $all_targets" in *" $t "*) ;; *) fail "unknown target $t (known: $all_targets)" ;; esac
  done
else
  targets="$all_targets"
fi

# The device build of one target. RUSTC_BOOTSTRAP: the GPU target,
# build-std and the intrinsics need unstable features; only this build
# enables them, the workspace stays on stable. RUSTFLAGS is set, not
# appended to: target-cpu and the panic strategy must reach core too, and
# host-oriented flags from the caller have no business in a GPU build.
# -Cpanic=immediate-abort makes every panic a trap in place: no call, so no
# stack and no scratch. The flags after `--` reach the kernel crate only.
# Each target gets its own cargo target directory, so that building one does
# not invalidate the other's core.
device_cargo() {
  local gfx="$1"
  shift
  env -u CARGO_ENCODED_RUSTFLAGS \
    RUSTC_BOOTSTRAP=1 \
    RUSTFLAGS="-Ctarget-cpu=$gfx -Zunstable-options -Cpanic=immediate-abort" \
    CARGO_TARGET_DIR="$target_dir/device-build/$gfx" \
    cargo rustc --manifest-path mfma-kernels/Cargo.toml --release \
    --target amdgcn-amd-amdhsa -Zbuild-std=core \
    --message-format=json-render-diagnostics "$@"
}

# The build script's OUT_DIR, from cargo's JSON messages.
out_dir_of() {
  grep '"reason":"build-script-executed"' "$1" | grep '/mfma-kernels' |
    sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | tail -n 1
}

check_target() {
  local gfx="$1" start=$SECONDS
  local asm_dir="$target_dir/device-asm/$gfx" out="$target_dir/device/$gfx"
  local asm="$asm_dir/mfma_kernels.s" log="$asm_dir/cargo.log" json="$asm_dir/cargo.json"
  mkdir -p "$asm_dir" "$out"
  say "$gfx: building mfma-kernels (code object v$cov)"
  build() {
    device_cargo "$gfx" -- --emit "asm=$asm,link" -D warnings -Zverbose-asm \
      -C "llvm-args=-amdhsa-code-object-version=$cov" >"$json" 2>"$log" || {
      cat "$log" >&2
      fail "$gfx: mfma-kernels did not build (log above)"
    }
  }
  rm -f "$asm"
  build
  # A build cargo finds fresh does not write the assembly: force one.
  if [ ! -s "$asm" ]; then
    touch mfma-kernels/src/lib.rs
    build
  fi
  # Warnings from the dependencies' device code count as failures too.
  if grep -E '^warning' "$log" >/dev/null; then
    cat "$log" >&2
    fail "$gfx: the device build has warnings (above)"
  fi
  local out_dir
  out_dir="$(out_dir_of "$json")"
  [ -n "$out_dir" ] && [ -s "$out_dir/kernels.tsv" ] ||
    fail "$gfx: cannot find kernels.tsv from mfma-kernels' build script"
  cp "$target_dir/device-build/$gfx/amdgcn-amd-amdhsa/release/mfma_kernels.elf" "$out/mfma_kernels.hsaco"
  cp "$out_dir/kernels.tsv" "$out/kernels.tsv"
  cp "$out_dir/kernels.rs" "$asm_dir/kernels.rs"
  say "$gfx: built in $((SECONDS - start))s; checking"

  "$checker" check --target "$gfx" --code-object-version "$cov" --manifest "$out/kernels.tsv" \
    --asm "$asm" --code-object "$out/mfma_kernels.hsaco" | tee "$out/check.txt" ||
    fail "$gfx: the kernels do not compile to what the spec says (FAIL lines above)"

  grep -q '^gemm' "$out/kernels.tsv" ||
    say "$gfx: no GEMM kernel: mfma_gemm::catalog::POLICIES has no policy of this architecture yet"

  wrong_arch "$gfx" "$out_dir"
  clang_reference "$gfx" "$out"
  say "$gfx: passed in $((SECONDS - start))s; code object: $out/mfma_kernels.hsaco"
}

# A kernel naming a builtin of another architecture must not compile, and
# the error must be mfma-core's, naming what to use instead.
wrong_arch() {
  local gfx="$1" out_dir="$2"
  local log="$target_dir/device-asm/$gfx/wrong-arch.log"
  local expected="$out_dir/wrong_arch.tsv"
  [ -s "$expected" ] || fail "$gfx: no wrong_arch.tsv from mfma-kernels' build script"
  if device_cargo "$gfx" --features wrong-arch -- -D warnings >/dev/null 2>"$log"; then
    fail "$gfx: kernels using builtins of another architecture compiled (see $expected)"
  fi
  if grep -q 'Cannot select' "$log"; then
    cat "$log" >&2
    fail "$gfx: LLVM's 'Cannot select' instead of mfma-core's message"
  fi
  local builtin message n=0
  while IFS=$'\t' read -r builtin message; do
    grep -qF "error[E0080]: evaluation panicked: $message" "$log" || {
      cat "$log" >&2
      fail "$gfx: mfma!($builtin) did not fail with: $message"
    }
    say "$gfx: mfma!($builtin) refused: $message"
    n=$((n + 1))
  done <"$expected"
  # Nothing else went wrong: one error per example, and cargo's summary.
  local errors
  errors="$(grep -c '^error' "$log" || true)"
  [ "$errors" -eq $((n + 1)) ] || {
    cat "$log" >&2
    fail "$gfx: $errors errors, expected the $n above and cargo's summary"
  }
}

# What clang emits for the equivalent HIP kernels, where clang can: the
# metadata a HIP launcher is used to, field by field.
clang_reference() {
  local gfx="$1" out="$2"
  local clang="${CLANG:-$(command -v clang-14 || true)}"
  if [ -z "$clang" ]; then
    say "$gfx: clang comparison skipped: no clang-14 (apt-get install clang-14; or CLANG=...)"
    return
  fi
  if ! "$clang" -print-targets 2>/dev/null | grep -q amdgcn ||
    ! "$clang" --target=amdgcn-amd-amdhsa -mcpu="$gfx" -nogpulib -x c -c /dev/null -o /dev/null 2>/dev/null; then
    say "$gfx: clang comparison skipped: $clang cannot compile for $gfx"
    return
  fi
  # clang links device code with ld.lld: rustc's own lld serves.
  local bin="$target_dir/device-build/lld"
  mkdir -p "$bin"
  ln -sf "$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/rust-lld" "$bin/ld.lld"
  ln -sf ld.lld "$bin/lld"
  local ref="$out/reference-clang.hsaco"
  PATH="$bin:$PATH" "$clang" -x hip --cuda-device-only --no-gpu-bundle-output -nogpuinc -nogpulib \
    --offload-arch="$gfx" -O3 -c mfma-kernels/hip/reference.hip -o "$ref" ||
    fail "$gfx: clang did not compile mfma-kernels/hip/reference.hip"
  local k
  for k in gemm_f32_32x32x2f32 mfma_f32_32x32x8f16; do
    say "$gfx: $k beside clang's HIP kernel of the same name"
    "$checker" compare "$out/mfma_kernels.hsaco" "$k" "$ref" "$k" | tee "$out/compare-$k.txt" ||
      fail "$gfx: $k's metadata differs from clang's where it must agree (MISMATCH above)"
  done
}

start=$SECONDS
for gfx in $targets; do
  check_target "$gfx"
done
say "all passed in $((SECONDS - start))s ($(echo $targets))"
