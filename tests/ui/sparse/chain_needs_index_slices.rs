// A chain of SMFMAC takes the index fragments as a third slice.
use mfma_core::{mfma, Acc, FragA, FragB};

type S = mfma!(cdna3::smfmac_f32_16x16x32_f16);

fn main() {
    let (a, b) = ([FragA::<S>::zero(); 2], [FragB::<S>::zero(); 2]);
    let _ = mfma!(cdna3::smfmac_f32_16x16x32_f16[a, b](Acc::<S>::zero()));
}
