//! The arguments of one matrix multiplication, as a GPU kernel receives them.

use crate::view::{OutTile, Tile};
use core::marker::PhantomData;
use mfma_core::Element;

/// `C = A·B` with A `m × k`, B `k × n` and C `m × n`, all dense row-major.
///
/// It holds C as a raw pointer, like a kernel argument, so that many workers
/// (host threads, or waves on the GPU) can write their disjoint tiles of C
/// through one shared `&Problem`; only the unsafe
/// [`gemm_wave`](crate::gemm_wave) writes.
///
/// ```
/// use mfma_gemm::Problem;
/// let (a, b, mut c) = ([1.0f64; 6], [2.0f64; 12], [0.0f64; 8]);
/// let p = Problem::new(2, 4, 3, &a, &b, &mut c);
/// assert_eq!((p.m(), p.n(), p.k()), (2, 4, 3));
/// assert_eq!(p.b_t().get(3, 2), 2.0); // B[2][3], read as B^T
/// ```
pub struct Problem<'a, In, Out> {
    m: usize,
    n: usize,
    k: usize,
    a: &'a [In],
    b: &'a [In],
    c: *mut Out,
    _c: PhantomData<&'a mut [Out]>,
}

// SAFETY: A and B are shared reads. C is written only by `gemm_wave`, whose
// contract makes the writes of concurrent calls disjoint.
unsafe impl<In: Sync, Out: Send> Sync for Problem<'_, In, Out> {}
// SAFETY: as above; the problem owns no thread-bound state.
unsafe impl<In: Sync, Out: Send> Send for Problem<'_, In, Out> {}

impl<'a, In: Element, Out: Element> Problem<'a, In, Out> {
    /// Borrows the three matrices.
    ///
    /// # Panics
    /// If a slice does not hold exactly its matrix.
    pub fn new(m: usize, n: usize, k: usize, a: &'a [In], b: &'a [In], c: &'a mut [Out]) -> Self {
        assert_eq!(a.len(), m * k, "A must be {m}x{k}");
        assert_eq!(b.len(), k * n, "B must be {k}x{n}");
        assert_eq!(c.len(), m * n, "C must be {m}x{n}");
        Problem {
            m,
            n,
            k,
            a,
            b,
            c: c.as_mut_ptr(),
            _c: PhantomData,
        }
    }

    /// From kernel arguments.
    ///
    /// # Safety
    /// `a` must point to `m * k` readable elements, `b` to `k * n` and `c` to
    /// `m * n` writable ones, valid for `'a`; nothing else may write A or B,
    /// or access C outside `gemm_wave`, during `'a`.
    pub unsafe fn from_raw(
        m: usize,
        n: usize,
        k: usize,
        a: *const In,
        b: *const In,
        c: *mut Out,
    ) -> Self {
        Problem {
            m,
            n,
            k,
            // SAFETY: by the caller's contract.
            a: unsafe { core::slice::from_raw_parts(a, m * k) },
            // SAFETY: by the caller's contract.
            b: unsafe { core::slice::from_raw_parts(b, k * n) },
            c,
            _c: PhantomData,
        }
    }

    /// Rows of A and C.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Columns of B and C.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Columns of A, rows of B.
    pub fn k(&self) -> usize {
        self.k
    }

    /// A as an `m × k` view.
    pub fn a(&self) -> Tile<'a, In> {
        Tile::row_major(self.a, self.m, self.k)
    }

    /// B read transposed, as an `n × k` view (the tutorial's `tile_b_T` orientation).
    pub fn b_t(&self) -> Tile<'a, In> {
        Tile::row_major(self.b, self.k, self.n).transposed()
    }

    /// The `rows × cols` region of C at `(row0, col0)`, clipped to C.
    ///
    /// # Safety
    /// No other live view or access may touch that region.
    pub(crate) unsafe fn out_tile(
        &self,
        row0: usize,
        col0: usize,
        rows: usize,
        cols: usize,
    ) -> OutTile<'_, Out> {
        let rows = rows.min(self.m.saturating_sub(row0));
        let cols = cols.min(self.n.saturating_sub(col0));
        let origin = if rows == 0 || cols == 0 {
            self.c
        } else {
            // SAFETY: (row0, col0) is inside C.
            unsafe { self.c.add(row0 * self.n + col0) }
        };
        // SAFETY: the clipped region lies inside C; exclusivity is the caller's.
        unsafe { OutTile::new(origin, rows, cols, self.n) }
    }
}
