// gfx942 has no non-_1k bf16 MFMA: the message names CDNA3's counterpart.
use mfma_core::mfma;

type X = mfma!(cdna3::f32_32x32x4bf16);
type Y = mfma!(cdna3::i32_16x16x16i8);

fn main() {
    let _ = X::SPEC;
    let _ = Y::SPEC;
}
