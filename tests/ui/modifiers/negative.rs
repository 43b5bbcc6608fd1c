// Modifiers are unsigned bit fields; LLVM would encode -1 as all ones.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x4f16);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x4f16(a, b, c, cbsz = -1));
    let _ = mfma!(f32_16x16x4f16(a, b, c, cbsz = 1, abid = -1));
    let _ = mfma!(f32_16x16x4f16(a, b, c, blgp = -1));
}
