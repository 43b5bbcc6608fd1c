// An SMFMAC call without its index operand.
use mfma_core::{mfma, Acc, FragA, FragB};

type S = mfma!(cdna3::smfmac_f32_16x16x32_bf16);

fn main() {
    let (a, b, c) = (FragA::<S>::zero(), FragB::<S>::zero(), Acc::<S>::zero());
    let _ = mfma!(cdna3::smfmac_f32_16x16x32_bf16(a, b, c));
}
