// Literal modifiers reach `execute` unchanged, whatever their order, suffix
// or parentheses; the largest legal values compile for every block count.
use mfma_core::{execute, mfma, Acc, FragA, FragB, Instr};

fn inputs<X: Instr<In = f32, InB = f32, Out = f32>>() -> (FragA<X>, FragB<X>, Acc<X>) {
    let a = FragA::<X>::from_fn(|b, i, k| (b * 7 + i * 3 + k) as f32);
    let b = FragB::<X>::from_fn(|b, k, j| (b * 5 + k * 2 + j) as f32 - 4.0);
    (a, b, Acc::<X>::splat(0.5))
}

fn main() {
    type Two = mfma!(f32_32x32x1f32);
    let (a, b, c) = inputs::<Two>();
    let plain = mfma!(f32_32x32x1f32(a, b, c));
    let routed = mfma!(f32_32x32x1f32(a, b, c, blgp = 3, abid = 1u32, cbsz = (1)));
    assert_eq!(routed, execute::<Two, 1, 1, 3>(a, b, c));
    assert_ne!(routed, plain, "the modifiers must change the result");
    assert_eq!(plain, execute::<Two, 0, 0, 0>(a, b, c));
    assert_eq!(
        mfma!(f32_32x32x1f32(a, b, c, cbsz = 0, abid = -0, blgp = 0)),
        plain
    );

    type Four = mfma!(f32_16x16x1f32);
    let (a, b, c) = inputs::<Four>();
    let d = mfma!(f32_16x16x1f32(a, b, c, cbsz = 2, abid = 3, blgp = 7));
    assert_eq!(d, execute::<Four, 2, 3, 7>(a, b, c));

    type Sixteen = mfma!(f32_4x4x1f32);
    let (a, b, c) = inputs::<Sixteen>();
    let d = mfma!(f32_4x4x1f32(a, b, c, cbsz = 4, abid = 15, blgp = 4,));
    assert_eq!(d, execute::<Sixteen, 4, 15, 4>(a, b, c));

    // 1-block builtins take blgp; the f64 ones take no modifier at all.
    type One = mfma!(f32_16x16x4f32);
    let (a, b, c) = inputs::<One>();
    assert_eq!(
        mfma!(f32_16x16x4f32(a, b, c, blgp = 5)),
        execute::<One, 0, 0, 5>(a, b, c)
    );
    type F64 = mfma!(f64_4x4x4f64);
    let d = mfma!(f64_4x4x4f64(
        FragA::<F64>::splat(2.0),
        FragB::<F64>::splat(3.0),
        Acc::<F64>::zero()
    ));
    assert_eq!(d.get(3, 3, 3), 4.0 * 6.0);
}
