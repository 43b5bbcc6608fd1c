// With cbsz a named constant, the range of a literal abid is checked by the
// backstop, against the constant's value.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x4bf16_1k);
const CB: i32 = 1;

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x4bf16_1k(a, b, c, cbsz = CB, abid = 2));
}
