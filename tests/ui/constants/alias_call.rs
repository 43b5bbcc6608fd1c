// A builtin named by a type alias is checked when the call is compiled (the
// macro cannot see through the alias), at the call, with the spec's message.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(i32_16x16x4i8);
type F = mfma!(cdna3::f32_32x32x8bf16_1k);

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let _ = mfma!(X(a, b, c, cbsz = 3));

    let (a, b, c) = (FragA::<F>::zero(), FragB::<F>::zero(), Acc::<F>::zero());
    let _ = mfma!(F(a, b, c, neg = [a]));
}
