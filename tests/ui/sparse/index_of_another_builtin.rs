// Index fragments are typed by builtin: another SMFMAC's does not fit.
use mfma_core::{mfma, Acc, FragA, FragB, FragIdx};

type S = mfma!(cdna3::smfmac_f32_16x16x32_f16);
type T = mfma!(cdna3::smfmac_f32_32x32x16_f16);

fn main() {
    let (a, b, c) = (FragA::<S>::zero(), FragB::<S>::zero(), Acc::<S>::zero());
    let idx = FragIdx::<T>::zero();
    let _ = mfma!(cdna3::smfmac_f32_16x16x32_f16(a, b, c, idx));
}
