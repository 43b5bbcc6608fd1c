//! Bounds-checked views of matrices: zero-padded reads and clipped writes.
//!
//! Tiles of the tutorial hang off the matrix edges when a size is not a
//! multiple of the tile; these views make the edge handling one rule that
//! every policy shares instead of a check in each `load_*`/`store_c`.

use core::marker::PhantomData;
use mfma_core::Element;

/// A read-only, strided view of `rows × cols` elements: element `(r, c)` is
/// `data[r * row_stride + c * col_stride]`. Reads outside the view return
/// zero, which is how a tile is zero-padded at the matrix edges.
///
/// The same type serves a block of a matrix in global memory (the portable
/// choice, usable on the GPU) and a staged buffer on the host.
///
/// ```
/// use mfma_gemm::Tile;
/// let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2 × 3, row-major
/// let a = Tile::row_major(&m, 2, 3);
/// assert_eq!(a.get(1, 2), 6.0);
/// assert_eq!(a.get(2, 0), 0.0); // past the edge: padding
/// let t = a.transposed();
/// assert_eq!(t.get(2, 1), 6.0);
/// assert_eq!(a.sub(1, 1, 4, 4).get(0, 1), 6.0); // clipped to 1 × 2
/// assert_eq!(a.sub(1, 1, 4, 4).get(0, 2), 0.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Tile<'a, E> {
    data: &'a [E],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl<'a, E: Element> Tile<'a, E> {
    /// A view with explicit strides.
    ///
    /// # Panics
    /// If an element inside the view lies past the end of `data`.
    #[inline]
    pub fn new(
        data: &'a [E],
        rows: usize,
        cols: usize,
        row_stride: usize,
        col_stride: usize,
    ) -> Self {
        if rows > 0 && cols > 0 {
            assert!(
                (rows - 1) * row_stride + (cols - 1) * col_stride < data.len(),
                "view of {rows}x{cols} with strides ({row_stride}, {col_stride}) \
                 exceeds {} elements",
                data.len()
            );
        }
        Tile {
            data,
            rows,
            cols,
            row_stride,
            col_stride,
        }
    }

    /// A dense row-major `rows × cols` matrix.
    #[inline]
    pub fn row_major(data: &'a [E], rows: usize, cols: usize) -> Self {
        Self::new(data, rows, cols, cols, 1)
    }

    /// The same elements with rows and columns swapped (no copy).
    #[inline]
    pub fn transposed(self) -> Self {
        Tile {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    /// Rows inside the view.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns inside the view.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Element `(r, c)`, or zero outside the view.
    #[inline(always)]
    pub fn get(&self, r: usize, c: usize) -> E {
        if r < self.rows && c < self.cols {
            // SAFETY: `new` checked that the last element inside the view is
            // in bounds, and strides are non-negative.
            unsafe {
                *self
                    .data
                    .get_unchecked(r * self.row_stride + c * self.col_stride)
            }
        } else {
            E::ZERO
        }
    }

    /// Whether the `rows × cols` window at `(r0, c0)` lies wholly inside
    /// the view, so that no read of it needs padding.
    #[inline(always)]
    pub fn holds(&self, r0: usize, c0: usize, rows: usize, cols: usize) -> bool {
        r0 + rows <= self.rows && c0 + cols <= self.cols
    }

    /// The rows of the `rows × cols` window at `(r0, c0)` as slices, if the
    /// window lies inside the view and its rows are contiguous.
    ///
    /// ```
    /// use mfma_gemm::Tile;
    /// let m = [1, 2, 3, 4, 5, 6]; // 2 × 3
    /// let a = Tile::row_major(&m, 2, 3);
    /// let rows: Vec<&[i32]> = a.rows_of(0, 1, 2, 2).unwrap().collect();
    /// assert_eq!(rows, [&[2, 3][..], &[5, 6][..]]);
    /// assert!(a.rows_of(0, 2, 2, 2).is_none()); // past the edge
    /// assert!(a.transposed().rows_of(0, 0, 2, 2).is_none()); // strided
    /// ```
    #[inline(always)]
    pub fn rows_of(
        &self,
        r0: usize,
        c0: usize,
        rows: usize,
        cols: usize,
    ) -> Option<impl Iterator<Item = &'a [E]> + 'a> {
        if !(self.holds(r0, c0, rows, cols) && self.col_stride == 1) {
            return None;
        }
        let (data, stride) = (self.data, self.row_stride);
        Some((r0..r0 + rows).map(move |r| &data[r * stride + c0..][..cols]))
    }

    /// Asks the CPU to bring the `rows × cols` window at `(r0, c0)`
    /// (clipped to the view) into cache: a hint, with no effect on values.
    /// One request per cache line along whichever direction is contiguous.
    /// Host only; elsewhere it does nothing.
    #[inline]
    pub fn prefetch(&self, r0: usize, c0: usize, rows: usize, cols: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            let rows = rows.min(self.rows.saturating_sub(r0));
            let cols = cols.min(self.cols.saturating_sub(c0));
            let line = (64 / core::mem::size_of::<E>().max(1)).max(1);
            let (outer, inner, outer_stride, step) = if self.col_stride == 1 {
                (rows, cols, self.row_stride, line)
            } else if self.row_stride == 1 {
                (cols, rows, self.col_stride, line)
            } else {
                return;
            };
            let base = r0 * self.row_stride + c0 * self.col_stride;
            for o in 0..outer {
                for i in (0..inner).step_by(step) {
                    if let Some(e) = self.data.get(base + o * outer_stride + i) {
                        let p = core::ptr::from_ref(e).cast::<i8>();
                        // SAFETY: a prefetch never faults, and `p` points into `data`.
                        #[allow(unused_unsafe)]
                        unsafe {
                            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                                p,
                            )
                        };
                    }
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (r0, c0, rows, cols);
    }

    /// Copies the `rows × cols` window at `(r0, c0)` into `out`, row-major
    /// (`out.len()` must be `rows * cols`); reads outside the view give zero.
    /// Contiguous rows of a window inside the view are copied whole.
    ///
    /// ```
    /// use mfma_gemm::Tile;
    /// let m = [1, 2, 3, 4, 5, 6]; // 2 × 3
    /// let mut out = [9; 4];
    /// Tile::row_major(&m, 2, 3).copy_window(1, 1, 2, 2, &mut out);
    /// assert_eq!(out, [5, 6, 0, 0]);
    /// Tile::row_major(&m, 2, 3).transposed().copy_window(1, 0, 2, 2, &mut out);
    /// assert_eq!(out, [2, 5, 3, 6]);
    /// ```
    #[inline(always)]
    pub fn copy_window(&self, r0: usize, c0: usize, rows: usize, cols: usize, out: &mut [E]) {
        assert_eq!(out.len(), rows * cols, "window of {rows}x{cols}");
        if self.holds(r0, c0, rows, cols) && self.col_stride == 1 {
            for (r, out) in out.chunks_exact_mut(cols).enumerate() {
                let start = (r0 + r) * self.row_stride + c0;
                out.copy_from_slice(&self.data[start..start + cols]);
            }
        } else {
            for (r, out) in out.chunks_exact_mut(cols).enumerate() {
                for (c, v) in out.iter_mut().enumerate() {
                    *v = self.get(r0 + r, c0 + c);
                }
            }
        }
    }

    /// Row `r` from column `c0` on, at most `len` elements, clipped to the
    /// view (empty past an edge), if the view's rows are contiguous.
    ///
    /// ```
    /// use mfma_gemm::Tile;
    /// let m = [1, 2, 3, 4, 5, 6]; // 2 × 3
    /// let a = Tile::row_major(&m, 2, 3);
    /// assert_eq!(a.row_run(1, 1, 8), Some(&[5, 6][..]));
    /// assert_eq!(a.row_run(2, 0, 8), Some(&[][..])); // past the last row
    /// assert_eq!(a.transposed().row_run(0, 0, 2), None); // strided
    /// ```
    #[inline]
    pub fn row_run(&self, r: usize, c0: usize, len: usize) -> Option<&'a [E]> {
        if self.col_stride != 1 {
            return None;
        }
        if r >= self.rows || c0 >= self.cols {
            return Some(&[]);
        }
        let len = len.min(self.cols - c0);
        Some(&self.data[r * self.row_stride + c0..][..len])
    }

    /// The `rows × cols` sub-view starting at `(r0, c0)`, clipped to this
    /// view (possibly empty): reads past its edge stay zero.
    #[inline]
    pub fn sub(&self, r0: usize, c0: usize, rows: usize, cols: usize) -> Self {
        let rows = rows.min(self.rows.saturating_sub(r0));
        let cols = cols.min(self.cols.saturating_sub(c0));
        if rows == 0 || cols == 0 {
            return Tile {
                data: &[],
                rows: 0,
                cols: 0,
                ..*self
            };
        }
        Tile {
            data: &self.data[r0 * self.row_stride + c0 * self.col_stride..],
            rows,
            cols,
            ..*self
        }
    }
}

/// A writable, row-major region of the output matrix owned by one worker.
/// Writes outside the region are dropped, which clips a tile at the matrix
/// edges. Only [`gemm_wave`](crate::gemm_wave) makes one, for the worker's own
/// tile, so a policy cannot write into another worker's outputs.
pub struct OutTile<'a, E> {
    origin: *mut E,
    rows: usize,
    cols: usize,
    stride: usize,
    _m: PhantomData<&'a mut [E]>,
}

impl<E: Element> OutTile<'_, E> {
    /// # Safety
    /// Every `(r, c)` with `r < rows`, `c < cols` must address
    /// `origin + r * stride + c` inside one allocation that nothing else reads
    /// or writes while the view lives.
    #[inline]
    pub(crate) unsafe fn new(origin: *mut E, rows: usize, cols: usize, stride: usize) -> Self {
        OutTile {
            origin,
            rows,
            cols,
            stride,
            _m: PhantomData,
        }
    }

    /// Writes element `(r, c)` of the region if it lies inside the matrix.
    #[inline(always)]
    pub fn store(&mut self, r: usize, c: usize, v: E) {
        if r < self.rows && c < self.cols {
            // SAFETY: in bounds and exclusive by the contract of `new`.
            unsafe { self.origin.add(r * self.stride + c).write(v) }
        }
    }

    /// Writes `v` to row `r` from column 0, as far as the region reaches:
    /// [`store`](OutTile::store) of each element, as one copy.
    #[inline]
    pub fn store_row(&mut self, r: usize, v: &[E]) {
        if r < self.rows {
            let len = v.len().min(self.cols);
            // SAFETY: row `r`'s first `len <= cols` elements are in bounds
            // and exclusive by the contract of `new`; `v` is another slice.
            unsafe {
                core::ptr::copy_nonoverlapping(v.as_ptr(), self.origin.add(r * self.stride), len)
            }
        }
    }
}
