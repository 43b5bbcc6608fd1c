// `execute_sparse` takes SMFMAC builtins only.
use mfma_core::{execute_sparse, mfma, Acc, FragA, FragB, FragIdx};

type D = mfma!(cdna3::f32_16x16x16f16);

fn main() {
    let (a, b, c) = (FragA::<D>::zero(), FragB::<D>::zero(), Acc::<D>::zero());
    let _ = execute_sparse::<D, 0, 0>(a, b, c, &FragIdx::<D>::zero());
}
