// SMFMAC through mfma!: the call form with its index, modifiers as literals
// and constants, the chain form, and a type alias; all agree with the
// function API.
use mfma_core::{execute_sparse, mfma, Acc, FragA, FragB, FragIdx, Positions};

type S = mfma!(cdna3::smfmac_f32_16x16x32_f16);
const SET: i32 = 2;

fn main() {
    let logical = |i: usize, k: usize| half::f16::from_f32(if k % 4 == i % 4 { 1.0 + k as f32 } else { 0.0 });
    let (a, idx) = FragA::<S>::compress(logical).unwrap();
    let b = FragB::<S>::from_fn(|_, k, j| half::f16::from_f32((k + j) as f32 / 8.0));
    let c = Acc::<S>::splat(0.25);

    let d = mfma!(cdna3::smfmac_f32_16x16x32_f16(a, b, c, idx));
    assert_eq!(d, execute_sparse::<S, 0, 0>(a, b, c, &idx));
    // Every set of a compressed index is the same, so any set gives d.
    assert_eq!(d, mfma!(cdna3::smfmac_f32_16x16x32_f16(a, b, c, idx, abid = 3)));
    assert_eq!(d, mfma!(cdna3::smfmac_f32_16x16x32_f16(a, b, c, idx, cbsz = 1, abid = SET)));
    assert_eq!(d, mfma!(S(a, b, c, idx, abid = SET)));

    // Set 1 reads other positions: a different product.
    let moved = FragIdx::<S>::from_fn(|set, i, g| if set == 1 { Positions::new(0, 3) } else { idx.get(set, i, g) });
    assert_ne!(d, mfma!(cdna3::smfmac_f32_16x16x32_f16(a, b, c, moved, abid = 1)));

    let (sa, sb, si) = ([a; 3], [b; 3], [idx; 3]);
    let chained = mfma!(cdna3::smfmac_f32_16x16x32_f16[sa, sb, si](c));
    let mut looped = c;
    for _ in 0..3 {
        looped = mfma!(cdna3::smfmac_f32_16x16x32_f16(a, b, looped, idx));
    }
    assert_eq!(chained, looped);
}
