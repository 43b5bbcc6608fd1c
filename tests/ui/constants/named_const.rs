// A named constant is not a literal the macro can read: the const-generic
// backstop in `execute` rejects it when the call is monomorphized.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x4f16);
const CB: i32 = 5;

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x4f16(a, b, c, cbsz = CB));
}
