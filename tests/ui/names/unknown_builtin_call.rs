use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_32x32x8bf16_1k);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let d = mfma!(f32_32x32x8bf16(a, b, c));
    let _: f32 = d.get(0, 0, 0);
    let _ = mfma!(__builtin_amdgcn_mfma_f64_16x16x4(a, b, c));
}
