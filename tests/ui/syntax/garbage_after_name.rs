use mfma_core::mfma;

type X = mfma!(f32_16x16x4f16 extra);
type Y = mfma!(f32_16x16x4f16(a, b, c) + 1);

fn main() {
    let _ = mfma!(f32_16x16x4f16, 1);
}
