// FP64 MFMA has no B lane-group pattern: blgp must be 0 on both f64 builtins.
use mfma_core::{mfma, Acc, FragA, FragB};

type F64x16 = mfma!(f64_16x16x4f64);
type F64x4 = mfma!(f64_4x4x4f64);

fn main() {
    let (a, b, c) = (
        FragA::<F64x16>::zero(),
        FragB::<F64x16>::zero(),
        Acc::<F64x16>::zero(),
    );
    let _ = mfma!(f64_16x16x4f64(a, b, c, blgp = 1));

    let (a, b, c) = (
        FragA::<F64x4>::zero(),
        FragB::<F64x4>::zero(),
        Acc::<F64x4>::zero(),
    );
    let _ = mfma!(f64_4x4x4f64(a, b, c, blgp = 7));
}
