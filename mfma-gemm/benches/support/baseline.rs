//! The matrixmultiply baseline, shared by the GEMM bench and the
//! `matrix_multiply --compare` example.

/// An element type matrixmultiply multiplies (sgemm, dgemm).
pub trait Gemm: mfma_core::Element + Send + Sync {
    /// `C = A·B`, all dense row-major, A `m × k`, B `k × n`.
    fn gemm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]);
}

macro_rules! impl_gemm {
    ($($t:ty => $f:ident),*) => {$(
        impl Gemm for $t {
            fn gemm(m: usize, k: usize, n: usize, a: &[$t], b: &[$t], c: &mut [$t]) {
                let (rs, ks) = (n as isize, k as isize);
                assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
                // SAFETY: the slices hold the dense row-major matrices described.
                unsafe {
                    matrixmultiply::$f(
                        m, k, n, 1.0, a.as_ptr(), ks, 1, b.as_ptr(), rs, 1, 0.0,
                        c.as_mut_ptr(), rs, 1,
                    )
                }
            }
        }
    )*};
}
impl_gemm!(f32 => sgemm, f64 => dgemm);
