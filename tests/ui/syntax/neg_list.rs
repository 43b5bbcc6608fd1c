// `neg` is a list of distinct operands among a, b and c.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(cdna3::f64_16x16x4f64);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(cdna3::f64_16x16x4f64(a, b, c, neg = 5));
    let _ = mfma!(cdna3::f64_16x16x4f64(a, b, c, neg = [a, a]));
    let _ = mfma!(cdna3::f64_16x16x4f64(a, b, c, neg = [a, d]));
}
