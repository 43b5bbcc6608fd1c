// A named constant is checked when the call is compiled, with the same message.
use mfma_core::{mfma, Acc, FragA, FragB, FragIdx};

type S = mfma!(cdna3::smfmac_i32_16x16x64_i8);
const SET: i32 = 3;

fn main() {
    let (a, b, c, idx) = (FragA::<S>::zero(), FragB::<S>::zero(), Acc::<S>::zero(), FragIdx::<S>::zero());
    let _ = mfma!(cdna3::smfmac_i32_16x16x64_i8(a, b, c, idx, abid = SET));
}
