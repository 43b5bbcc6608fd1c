// A call takes exactly three operands: a, b, c.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x4f16);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x4f16());
    let _ = mfma!(f32_16x16x4f16(a, b));
    let _ = mfma!(f32_16x16x4f16(a, b, cbsz = 1));
    let _ = mfma!(f32_16x16x4f16(a, b, c, c));
}
