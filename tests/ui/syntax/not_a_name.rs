use mfma_core::mfma;

type X = mfma!(32x32);

fn main() {
    let _ = mfma!("f32_16x16x4f16");
}
