// abid picks a block within each group of 2^cbsz blocks: 0 <= abid < 2^cbsz.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_4x4x4f16);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    // cbsz = 0 (here: not given) leaves no choice of block.
    let _ = mfma!(f32_4x4x4f16(a, b, c, abid = 1));
    let _ = mfma!(f32_4x4x4f16(a, b, c, cbsz = 0, abid = 1));
    let _ = mfma!(f32_4x4x4f16(a, b, c, cbsz = 2, abid = 4));
    let _ = mfma!(f32_4x4x4f16(a, b, c, abid = 16, cbsz = 4));
}
