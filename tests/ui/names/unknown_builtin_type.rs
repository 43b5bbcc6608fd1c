// The non-_1k bf16 variant with K=8 does not exist; the closest name is suggested.
use mfma_core::{mfma, Acc, FragA};

type X = mfma!(f32_32x32x8bf16);

fn main() {
    // No further errors about X: the unknown name is reported once.
    let a = FragA::<X>::zero();
    let _ = Acc::<X>::zero();
    let _ = a;
}
