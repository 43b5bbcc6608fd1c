// `execute` runs dense MFMA; an SMFMAC type needs its index (execute_sparse).
use mfma_core::{execute, mfma, Acc, FragA, FragB};

type S = mfma!(cdna3::smfmac_f32_16x16x32_f16);

fn main() {
    let (a, b, c) = (FragA::<S>::zero(), FragB::<S>::zero(), Acc::<S>::zero());
    let _ = execute::<S, 0, 0, 0>(a, b, c);
}
