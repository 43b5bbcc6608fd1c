// CDNA4 (gfx950) has no table here: its fp8 formats and layouts differ.
use mfma_core::mfma;

type X = mfma!(cdna4::f32_32x32x16_fp8_fp8);

fn main() {
    let _ = X::SPEC;
}
