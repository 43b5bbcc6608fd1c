// A const parameter is checked for each instantiation of the generic function.
use mfma_core::{mfma, Acc, FragA, FragB};

type X = mfma!(f64_16x16x4f64);

fn step<const BLGP: i32>(a: FragA<X>, b: FragB<X>, c: Acc<X>) -> Acc<X> {
    mfma!(f64_16x16x4f64(a, b, c, blgp = BLGP))
}

fn main() {
    let (a, b, c) = (FragA::<X>::zero(), FragB::<X>::zero(), Acc::<X>::zero());
    let c = step::<0>(a, b, c);
    let _ = step::<2>(a, b, c);
}
