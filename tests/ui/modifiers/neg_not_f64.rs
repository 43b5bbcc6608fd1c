// On CDNA3 only the two FP64 MFMA negate operands.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(cdna3::f32_32x32x2f32);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(cdna3::f32_32x32x2f32(a, b, c, neg = [c]));
}
