// Each operand must be the matching fragment of the named builtin.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f32_16x16x4f16);
type Y = mfma!(f32_16x16x16f16);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(f32_16x16x4f16(b, a, c));
    let _ = mfma!(f32_16x16x4f16(a, b, FragA::<Y>::zero()));
    let _ = mfma!(f32_16x16x16f16(a, b, c));
    let _ = mfma!(f32_16x16x4f16(a, b, 0.0f32));
}
