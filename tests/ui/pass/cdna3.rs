// CDNA3 calls: modifiers on the multi-block builtins, negation on f64, and
// the same name as a CDNA2 builtin giving another type and other results.
use mfma_core::{execute, mfma, Acc, FragA, FragB};

fn main() {
    type X = mfma!(cdna3::f64_16x16x4f64);
    let a = FragA::<X>::from_fn(|_, i, k| (i + 2 * k) as f64);
    let b = FragB::<X>::from_fn(|_, k, j| (k * j) as f64 - 3.0);
    let c = Acc::<X>::splat(1.5);
    let plain = mfma!(cdna3::f64_16x16x4f64(a, b, c));
    let negated = mfma!(cdna3::f64_16x16x4f64(a, b, c, neg = [a, c]));
    // neg = [a, c]: D = -A·B - C, the flags in the third immediate (0b101).
    assert_eq!(negated, execute::<X, 0, 0, 0b101>(a, b, c));
    for ((p, n), c) in plain
        .as_row_major()
        .iter()
        .zip(negated.as_row_major())
        .zip(c.as_row_major())
    {
        assert_eq!(*n, -(p - c) - c);
    }
    let all = mfma!(cdna3::f64_16x16x4f64(a, b, c, neg = [c, b, a]));
    assert_eq!(all, execute::<X, 0, 0, 7>(a, b, c));

    type Four = mfma!(cdna3::f32_16x16x4f16);
    let a = FragA::<Four>::from_fn(|blk, i, k| mfma_core::half::f16::from_f32((blk + i + k) as f32));
    let b = FragB::<Four>::splat(mfma_core::half::f16::ONE);
    let c = Acc::<Four>::zero();
    let d = mfma!(cdna3::f32_16x16x4f16(a, b, c, cbsz = 2, abid = 3, blgp = 7));
    assert_eq!(d, execute::<Four, 2, 3, 7>(a, b, c));

    // The ISA spelling names the same type.
    type Isa = mfma!(cdna3::v_mfma_f32_16x16x4_4b_f16);
    let _: Four = Isa::default();
}
