// On CDNA3 the FP64 MFMA's blgp bits are negation flags: a blgp number would
// silently negate operands, so it is refused and `neg = [..]` suggested.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(cdna3::f64_16x16x4f64);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(cdna3::f64_16x16x4f64(a, b, c, blgp = 5));
}
