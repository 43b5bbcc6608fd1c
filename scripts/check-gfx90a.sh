#!/usr/bin/env bash
# Compiles the mfma! call sites of gfx90a-kernels for gfx90a and checks the
# assembly: every kernel holds exactly its v_mfma_* instruction with exactly
# the modifiers asked for, and no kernel touches scratch memory.
#
# What to expect comes from the spec: gfx90a-kernels/build.rs generates the
# kernels from mfma-spec's table and writes expected.tsv beside them.
#
# Usage (from anywhere): bash scripts/check-gfx90a.sh
# Output: target/gfx90a-asm/ (or $CARGO_TARGET_DIR/gfx90a-asm/).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

fail() {
  echo "check-gfx90a: FAILED: $*" >&2
  exit 1
}

target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
asm_dir="$target_dir/gfx90a-asm"
asm="$asm_dir/gfx90a_kernels.s"
mkdir -p "$asm_dir"

# -Zbuild-std compiles core from source for the GPU target.
if ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  echo "check-gfx90a: installing rust-src"
  rustup component add rust-src
fi

echo "check-gfx90a: building gfx90a-kernels (amdgcn-amd-amdhsa, gfx90a, release)"
start=$SECONDS
# RUSTC_BOOTSTRAP: the GPU target, build-std and the intrinsics need unstable
# features; only this build enables them, the workspace stays on stable.
# RUSTFLAGS is set, not appended to: target-cpu must reach core too, and
# host-oriented flags from the caller have no business in a GPU build.
# `cargo rustc` passes --emit and -D warnings to the kernel crate only.
build() {
  env -u CARGO_ENCODED_RUSTFLAGS \
    RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Ctarget-cpu=gfx90a" CARGO_TARGET_DIR="$target_dir" \
    cargo rustc --manifest-path gfx90a-kernels/Cargo.toml --release \
    --target amdgcn-amd-amdhsa -Zbuild-std=core \
    --message-format=json-render-diagnostics \
    -- --emit "asm=$asm,link" -D warnings -Zverbose-asm >"$asm_dir/cargo.json" 2>"$asm_dir/cargo.log" || {
    cat "$asm_dir/cargo.log" >&2
    fail "gfx90a-kernels did not build for gfx90a (log above)"
  }
}
build
# A fresh (cached) build does not rewrite the assembly; regenerate it if it
# was removed since.
if [ ! -s "$asm" ]; then
  touch gfx90a-kernels/src/lib.rs
  build
fi
# Warnings from mfma-core's device path count as failures too.
if grep -E '^warning' "$asm_dir/cargo.log" >/dev/null; then
  cat "$asm_dir/cargo.log" >&2
  fail "the device build has warnings (above)"
fi
echo "check-gfx90a: built in $((SECONDS - start))s; assembly: $asm"

out_dir="$(grep '"reason":"build-script-executed"' "$asm_dir/cargo.json" |
  grep '/gfx90a-kernels' | sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | tail -n 1)"
[ -n "$out_dir" ] && [ -s "$out_dir/expected.tsv" ] ||
  fail "cannot find expected.tsv from gfx90a-kernels' build script"
cp "$out_dir/expected.tsv" "$out_dir/kernels.rs" "$asm_dir/"

# One awk pass over expected.tsv then the assembly. Per kernel it collects
# the v_mfma_* lines of its body, the loops LLVM annotates (verbose asm) and
# the branches, scratch instructions, the kernel descriptor and the
# metadata, then judges.
awk -F'\t' '
function fail(k, msg) { print "  FAIL " k ": " msg; bad++; kbad[k]++ }
function has(text, key, value) { return (" " text " ") ~ (" " key ":" value " ") }
FNR == NR {
  n++; name[n] = $2; kind[$2] = $1; mn[$2] = $3; total[$1]++
  want["cbsz", $2] = $4; want["abid", $2] = $5; want["blgp", $2] = $6
  next
}
{ line++ }
# Function labels carry a trailing "; @name" comment in verbose assembly.
/^[A-Za-z_][A-Za-z0-9_.]*:/ {
  label = $0; sub(/:.*/, "", label)
  cur = (label in kind) ? label : ""
  if (cur != "") found[cur] = 1
  loophdr = ""
}
/^\.Lfunc_end/ { cur = "" }
# Basic blocks: LLVM annotates those inside a loop with the header of the loop
# ("in Loop: Header=BB3_24"); a header says "Loop Header:", on the label
# line or, when it also names a parent loop, on the next line.
/^(\.LBB[0-9_]+|; %bb\.[0-9]+):/ && cur != "" {
  blk = $0; sub(/:.*/, "", blk)
  if (blk ~ /^\.L/) at[cur, blk] = line
  loophdr = ""
  if ($0 ~ /Loop Header:/) loophdr = blk
  else if (match($0, /in Loop: Header=BB[0-9_]+/)) loophdr = ".L" substr($0, RSTART + 16, RLENGTH - 16)
  blkhdr[cur, blk] = loophdr
}
/^[ \t]+; =>.*Loop Header:/ && cur != "" { loophdr = blk; blkhdr[cur, blk] = blk }
/^\tv_mfma_/ {
  text = $0; sub(/^\t/, "", text); sub(/[ \t]*;.*/, "", text)
  if (cur == "") { fail("(none)", "v_mfma outside any checked kernel, line " line ": " text); next }
  split(text, w, " ")
  count[cur]++; c = count[cur]; ins[cur, c] = text; insline[cur, c] = line; hdr[cur, c] = loophdr
  if (w[1] != mn[cur]) fail(cur, "wrong instruction " w[1] ", expected " mn[cur])
  for (m = 1; m <= 3; m++) {
    key = (m == 1 ? "cbsz" : m == 2 ? "abid" : "blgp"); v = want[key, cur]
    if (v != 0 && !has(text, key, v)) fail(cur, "expected " key ":" v " in: " text)
    if (v == 0 && text ~ (key ":")) fail(cur, "expected no " key " (zero) in: " text)
  }
}
/^\t(s_branch|s_cbranch_[a-z0-9]+) \.L/ && cur != "" {
  split($0, w, " "); nb[cur]++
  btarget[cur, nb[cur]] = w[2]; bline[cur, nb[cur]] = line; bhdr[cur, nb[cur]] = loophdr
}
/^\t(scratch|buffer)_(load|store)/ && cur != "" { scratch[cur]++ }
/^\t\.amdhsa_kernel / { kd = $0; sub(/.*\.amdhsa_kernel /, "", kd) }
kd != "" && /\.amdhsa_private_segment_fixed_size / { split($0, f, " "); priv[kd] = f[2] }
kd != "" && /\.amdhsa_accum_offset / { split($0, f, " "); acco[kd] = f[2] }
/\.end_amdhsa_kernel/ { kd = "" }
# Kernel-level metadata keys are indented 4 (the first one 2 + "- "),
# argument-level ones 8.
/^  - \.agpr_count:/ { split($0, f, " "); pending_agpr = f[3] }
/^    \.name: / { split($0, f, " "); meta = f[2]; agpr[meta] = pending_agpr }
/^    \.vgpr_count: / { split($0, f, " "); vgpr[meta] = f[2] }
/^    \.(s|v)gpr_spill_count: / { split($0, f, " "); spill[meta] += f[2] }
END {
  for (i = 1; i <= n; i++) {
    k = name[i]
    if (!(k in found)) { fail(k, "kernel not in the assembly"); continue }
    if (kind[k] == "site" && count[k] != 1)
      fail(k, count[k] + 0 " v_mfma instructions, expected exactly one")
    if (kind[k] == "gemm") {
      if (count[k] < 1) fail(k, "no v_mfma instruction")
      # In a loop: LLVM places the block of the instruction in a loop, and a
      # branch of that loop after the instruction goes back to a block of
      # the same loop at or before it.
      looped = 0
      for (c = 1; c <= count[k]; c++) {
        h = hdr[k, c]
        if (h == "") continue
        for (b = 1; b <= nb[k]; b++) {
          t = btarget[k, b]
          if (bhdr[k, b] == h && bline[k, b] > insline[k, c] && blkhdr[k, t] == h && at[k, t] > 0 && at[k, t] < insline[k, c])
            looped = 1
        }
      }
      if (!looped) fail(k, mn[k] " is not inside a loop (no backward branch over it)")
    }
    if (priv[k] != "0") fail(k, ".amdhsa_private_segment_fixed_size " priv[k] ", expected 0 (scratch)")
    if (spill[k] != 0) fail(k, spill[k] " spilled registers")
    if (scratch[k] > 0) fail(k, scratch[k] " scratch/buffer memory instructions")
    if (kbad[k]) continue
    mods = ""
    if (kind[k] == "site") mods = ins[k, 1]; else mods = mn[k] " x" count[k] " in a loop"
    printf "  ok %-4s %-28s vgpr %3d agpr %3d accum_offset %3d  %s\n", kind[k], k, vgpr[k], agpr[k], acco[k], mods
    ok[kind[k]]++
  }
  printf "check-gfx90a: %d of %d call sites and %d of %d GEMM kernels as expected", \
    ok["site"], total["site"], ok["gemm"], total["gemm"]
  if (bad) { printf "; %d problems\n", bad; exit 1 }
  printf "\n"
}
' "$asm_dir/expected.tsv" "$asm" || fail "the assembly does not match the spec (see FAIL lines)"
echo "check-gfx90a: passed in $((SECONDS - start))s"
