// SMFMAC's cbsz is 0..=3 (CBSZ[2] is undefined beyond that); it does not
// broadcast blocks, so the dense message (log2 of blocks) would mislead.
use mfma_core::{mfma, Acc, FragA, FragB, FragIdx};

type S = mfma!(cdna3::smfmac_i32_32x32x32_i8);

fn main() {
    let (a, b, c, idx) = (FragA::<S>::zero(), FragB::<S>::zero(), Acc::<S>::zero(), FragIdx::<S>::zero());
    let _ = mfma!(cdna3::smfmac_i32_32x32x32_i8(a, b, c, idx, cbsz = 4));
}
