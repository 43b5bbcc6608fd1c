// SMFMAC has no blgp: its B is dense and its modifiers pick the index set.
use mfma_core::{mfma, Acc, FragA, FragB, FragIdx};

type S = mfma!(cdna3::smfmac_f32_16x16x32_f16);

fn main() {
    let (a, b, c, idx) = (FragA::<S>::zero(), FragB::<S>::zero(), Acc::<S>::zero(), FragIdx::<S>::zero());
    let _ = mfma!(cdna3::smfmac_f32_16x16x32_f16(a, b, c, idx, blgp = 2));
}
