// abid must name one of the index sets, whatever cbsz is: 4 sets for 16-bit
// inputs, 2 for 8-bit ones. (On dense MFMA abid < 2^cbsz; not here.)
use mfma_core::{mfma, Acc, FragA, FragB, FragIdx};

type H = mfma!(cdna3::smfmac_f32_32x32x16_bf16);
type F8 = mfma!(cdna3::smfmac_f32_16x16x64_fp8_bf8);

fn main() {
    let (a, b, c, idx) = (FragA::<H>::zero(), FragB::<H>::zero(), Acc::<H>::zero(), FragIdx::<H>::zero());
    let _ = mfma!(cdna3::smfmac_f32_32x32x16_bf16(a, b, c, idx, abid = 4));

    let (a, b, c, idx) = (FragA::<F8>::zero(), FragB::<F8>::zero(), Acc::<F8>::zero(), FragIdx::<F8>::zero());
    let _ = mfma!(cdna3::smfmac_f32_16x16x64_fp8_bf8(a, b, c, idx, cbsz = 1, abid = 2));
}
