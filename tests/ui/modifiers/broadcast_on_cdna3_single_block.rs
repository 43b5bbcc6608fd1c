// No other A block to broadcast on a 1-block CDNA3 builtin either.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(cdna3::f32_16x16x8_xf32);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(cdna3::f32_16x16x8_xf32(a, b, c, cbsz = 1));
}
