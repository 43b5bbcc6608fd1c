//! f16, bf16 and bf16_1k builtins: grouped pairwise f32 sums with
//! flush-to-zero (reference 4.2).

use super::{dims, Kernel};
use half::{bf16, f16};
use mfma_spec::{Arith, Builtin};

/// Smallest normal binary32.
const F32_MIN: f32 = f32::MIN_POSITIVE;

/// Inputs below the input type's smallest normal (and -0) become +0.
#[inline(always)]
fn flush_in(x: f32, min: f32) -> f32 {
    if x.abs() < min {
        0.0
    } else {
        x
    }
}

/// Finite results below the smallest normal f32 become zero of the same sign.
#[inline(always)]
fn ftz(x: f32) -> f32 {
    if x.abs() < F32_MIN {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// A product, flushed; an exact-zero product (a zero factor) is +0.
#[inline(always)]
fn prod(a: f32, b: f32) -> f32 {
    if (a == 0.0 || b == 0.0) && !(a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite()) {
        0.0
    } else {
        ftz(a * b)
    }
}

fn grouped(spec: &Builtin, min_in: f32, a: &[f32], b: &[f32], c: &mut [f32]) {
    let group = match spec.arith {
        Arith::GroupedSum { group } => group,
        _ => unreachable!("grouped kernel on a {:?} builtin", spec.arith),
    };
    let (blocks, m, n, k) = dims(spec);
    let _ = min_in;
    for blk in 0..blocks {
        let a = &a[blk * m * k..][..m * k];
        let b = &b[blk * k * n..][..k * n];
        let c = &mut c[blk * m * n..][..m * n];
        for i in 0..m {
            for j in 0..n {
                let mut acc = flush_in(c[i * n + j], F32_MIN);
                for g in (0..k).step_by(group) {
                    let p = |kk: usize| prod(a[i * k + kk], b[kk * n + j]);
                    let t = if group == 2 {
                        ftz(p(g) + p(g + 1))
                    } else {
                        ftz(ftz(p(g) + p(g + 1)) + ftz(p(g + 2) + p(g + 3)))
                    };
                    acc = ftz(acc + t);
                }
                c[i * n + j] = acc;
            }
        }
    }
}

macro_rules! grouped_kernel {
    ($t:ty, $min:expr) => {
        impl Kernel<f32> for $t {
            fn run(spec: &Builtin, a: &[$t], b: &[$t], c: &mut [f32]) {
                let min: f32 = $min;
                let conv = |x: &[$t]| -> [f32; 256] {
                    let mut out = [0.0f32; 256];
                    for (o, v) in out.iter_mut().zip(x) {
                        *o = flush_in(v.to_f32(), min);
                    }
                    out
                };
                let (fa, fb) = (conv(a), conv(b));
                grouped(spec, min, &fa[..a.len()], &fb[..b.len()], c);
            }
        }
    };
}

grouped_kernel!(f16, 6.103_515_6e-5); // 2^-14
grouped_kernel!(bf16, F32_MIN); // 2^-126
