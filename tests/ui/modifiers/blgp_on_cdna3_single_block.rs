// CDNA3's single-block f16, bf16, i8, fp8/bf8 and xf32 MFMA take no modifier
// at all; the same-named CDNA2 builtins took blgp, so the message says so.
use mfma_core::{mfma, Acc, FragA, FragB};

type H = mfma!(cdna3::f32_32x32x8f16);
type F8 = mfma!(cdna3::f32_16x16x32_fp8_bf8);

fn main() {
    let (a, b, c) = (FragA::<H>::zero(), FragB::<H>::zero(), Acc::<H>::zero());
    let _ = mfma!(cdna3::f32_32x32x8f16(a, b, c, blgp = 1));

    let (a, b, c) = (FragA::<F8>::zero(), FragB::<F8>::zero(), Acc::<F8>::zero());
    let _ = mfma!(cdna3::f32_16x16x32_fp8_bf8(a, b, c, blgp = 4));
}
