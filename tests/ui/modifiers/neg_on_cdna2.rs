// CDNA2's FP64 MFMA cannot negate operands (the same bits must be 0 there).
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f64_4x4x4f64);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f64_4x4x4f64(a, b, c, neg = [a]));
}
