// A misspelt CDNA3 name gets the closest CDNA3 builtin.
use mfma_core::mfma;

type X = mfma!(cdna3::f32_32x32x16_fp8_fp9);

fn main() {
    let _ = X::SPEC;
}
