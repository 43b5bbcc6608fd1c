// blgp selects one of 8 B lane-group patterns.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x16f16);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x16f16(a, b, c, blgp = 8));
}
