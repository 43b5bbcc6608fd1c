// f64_4x4x4f64 computes 4 blocks, yet FP64 MFMA has no A block broadcast.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f64_4x4x4f64);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f64_4x4x4f64(a, b, c, cbsz = 1));
    let _ = mfma!(f64_4x4x4f64(a, b, c, abid = 1));
}
