// A 1-block builtin has no other A block to broadcast: cbsz and abid must be 0.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_32x32x8bf16_1k);
const CB: i32 = 1;

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_32x32x8bf16_1k(a, b, c, cbsz = 1));
    let _ = mfma!(f32_32x32x8bf16_1k(a, b, c, abid = 1));
    // Whatever the constant is, abid cannot be nonzero here.
    let _ = mfma!(f32_32x32x8bf16_1k(a, b, c, cbsz = CB, abid = 1));
}
