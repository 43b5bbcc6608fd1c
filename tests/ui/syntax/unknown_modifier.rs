// CDNA2 MFMA has exactly three modifiers: cbsz, abid, blgp (OPSEL and the
// like are rejected on every CDNA instruction).
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x4f16);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x4f16(a, b, c, bglp = 1));
    let _ = mfma!(f32_16x16x4f16(a, b, c, opsel = 1));
}
