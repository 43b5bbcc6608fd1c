// The call form takes a type naming a builtin, and the chain form runs a
// slice of fragments: both mean exactly the calls they stand for.
use mfma_core::{execute_chain_into, execute_into, mfma, Acc, FragA, FragB, Instr};

type X = mfma!(f32_16x16x4f32);
type Y = mfma!(f32_4x4x1f32); // 16 blocks

fn generic<Z: Instr<In = f32, InB = f32, Out = f32>, const G: i32>(
    a: FragA<Z>,
    b: FragB<Z>,
) -> Acc<Z> {
    mfma!(Z(a, b, Acc::<Z>::zero(), blgp = G))
}

fn main() {
    let a = FragA::<X>::from_fn(|_, i, k| (i * 4 + k) as f32);
    let b = FragB::<X>::from_fn(|_, k, j| (k + j) as f32 / 8.0);
    let c = Acc::<X>::splat(0.25);
    let mut want = c;
    execute_into::<X, 0, 0, 3>(&a, &b, &mut want);
    assert_eq!(mfma!(X(a, b, c, blgp = 3)), want);
    assert_eq!(generic::<X, 3>(a, b), {
        let mut d = Acc::<X>::zero();
        execute_into::<X, 0, 0, 3>(&a, &b, &mut d);
        d
    });

    let a = [FragA::<Y>::from_fn(|blk, i, _| (blk + i) as f32); 3];
    let b = vec![FragB::<Y>::from_fn(|blk, _, j| (blk * j) as f32); 3];
    let c = Acc::<Y>::splat(1.0);
    let mut want = c;
    execute_chain_into::<Y, 2, 1, 0>(&a, &b, &mut want);
    assert_eq!(mfma!(f32_4x4x1f32[a, b](c, cbsz = 2, abid = 1)), want);
    assert_eq!(mfma!(Y[a, b](c, cbsz = 2, abid = 1)), want);
}
