// Modifiers are integer immediates.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x4f16);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x4f16(a, b, c, cbsz = 1.0));
    let _ = mfma!(f32_16x16x4f16(a, b, c, abid = true));
    let _ = mfma!(f32_16x16x4f16(a, b, c, blgp = "3"));
    let _ = mfma!(f32_16x16x4f16(a, b, c, blgp = 'x'));
    let _ = mfma!(f32_16x16x4f16(a, b, c, blgp = -2.5));
    let _ = mfma!(f32_16x16x4f16(a, b, c, blgp = 100000000000000000000));
}
