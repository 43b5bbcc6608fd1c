// Modifiers that are not literals (named constants, const parameters, values
// forwarded by another macro) pass through to `execute` as const arguments.
use mfma_core::{execute, mfma, Acc, FragA, FragB};

type X = mfma!(i32_16x16x4i8);
const CBSZ: i32 = 1;

fn step<const BLGP: i32>(a: FragA<X>, b: FragB<X>, c: Acc<X>) -> Acc<X> {
    mfma!(i32_16x16x4i8(a, b, c, cbsz = CBSZ, abid = 1, blgp = BLGP))
}

macro_rules! broadcast {
    ($a:expr, $b:expr, $c:expr, $abid:expr) => {
        mfma!(i32_16x16x4i8($a, $b, $c, cbsz = 2, abid = $abid))
    };
}

fn main() {
    let a = FragA::<X>::from_fn(|b, i, k| (b * 16 + i * 4 + k) as i8);
    let b = FragB::<X>::from_fn(|b, k, j| (b + k * 3 + j) as i8 - 20);
    let c = Acc::<X>::splat(-1);
    assert_eq!(step::<6>(a, b, c), execute::<X, 1, 1, 6>(a, b, c));
    assert_eq!(step::<0>(a, b, c), execute::<X, 1, 1, 0>(a, b, c));
    assert_ne!(step::<6>(a, b, c), step::<0>(a, b, c));
    assert_eq!(broadcast!(a, b, c, 3), execute::<X, 2, 3, 0>(a, b, c));
    assert_eq!(broadcast!(a, b, c, (2)), execute::<X, 2, 2, 0>(a, b, c));
}
