//! Fragments to and from tiles of larger matrices: the index arithmetic
//! every kernel would otherwise write by hand (leading dimension, offsets,
//! zero padding at the edges, blocks stacked down the rows).

use crate::element::Element;
use crate::fragment::{Acc, Fragment, Operand};
use crate::instr::Instr;

/// A read-only view of a matrix in a slice: element `(r, c)` is
/// `data[r * row_stride + c * col_stride]`. Row-major and column-major
/// matrices, with any leading dimension, are both such views.
///
/// ```
/// use mfma_core::Matrix;
/// let data: Vec<f32> = (0..12).map(|x| x as f32).collect();
/// let m = Matrix::row_major(&data, 3, 4); // 3 rows of 4
/// assert_eq!(m.get(2, 1), Some(&9.0));
/// let t = Matrix::col_major(&data, 4, 3); // the same data read as 4 x 3, column-major
/// assert_eq!(t.get(1, 2), Some(&9.0));
/// assert_eq!(m.get(3, 0), None); // outside
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Matrix<'a, T> {
    data: &'a [T],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

/// A writable view of a matrix in a slice (see [`Matrix`]).
///
/// ```
/// use mfma_core::MatrixMut;
/// let mut data = [0i32; 6];
/// let mut m = MatrixMut::row_major(&mut data, 2, 3);
/// *m.get_mut(1, 2).unwrap() = 7;
/// assert_eq!(data, [0, 0, 0, 0, 0, 7]);
/// ```
#[derive(Debug)]
pub struct MatrixMut<'a, T> {
    data: &'a mut [T],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

/// Checks that every element of a `rows × cols` view with the strides lies
/// in a slice of `len` elements (checked arithmetic: a wrap must not pass).
#[track_caller]
fn check_fits(len: usize, rows: usize, cols: usize, row_stride: usize, col_stride: usize) {
    if rows == 0 || cols == 0 {
        return;
    }
    let last = (rows - 1).checked_mul(row_stride).and_then(|r| {
        (cols - 1)
            .checked_mul(col_stride)
            .and_then(|c| r.checked_add(c))
    });
    assert!(
        last.is_some_and(|last| last < len),
        "a {rows} x {cols} matrix with strides ({row_stride}, {col_stride}) does not fit in {len} elements"
    );
}

macro_rules! constructors {
    ($view:ident, $slice:ty) => {
        impl<'a, T> $view<'a, T> {
            /// A `rows × cols` row-major matrix, rows `ld` elements apart
            /// (`ld >= cols`: a tile of a wider matrix).
            ///
            /// # Panics
            /// If `ld < cols` or the matrix does not fit in `data`.
            #[track_caller]
            pub fn row_major_ld(data: $slice, rows: usize, cols: usize, ld: usize) -> Self {
                assert!(
                    ld >= cols || rows <= 1,
                    "leading dimension {ld} below the {cols} columns"
                );
                Self::strided(data, rows, cols, ld, 1)
            }

            /// A dense `rows × cols` row-major matrix.
            ///
            /// # Panics
            /// If it does not fit in `data`.
            #[track_caller]
            pub fn row_major(data: $slice, rows: usize, cols: usize) -> Self {
                Self::strided(data, rows, cols, cols, 1)
            }

            /// A `rows × cols` column-major matrix, columns `ld` elements
            /// apart (`ld >= rows`).
            ///
            /// # Panics
            /// If `ld < rows` or the matrix does not fit in `data`.
            #[track_caller]
            pub fn col_major_ld(data: $slice, rows: usize, cols: usize, ld: usize) -> Self {
                assert!(
                    ld >= rows || cols <= 1,
                    "leading dimension {ld} below the {rows} rows"
                );
                Self::strided(data, rows, cols, 1, ld)
            }

            /// A dense `rows × cols` column-major matrix.
            ///
            /// # Panics
            /// If it does not fit in `data`.
            #[track_caller]
            pub fn col_major(data: $slice, rows: usize, cols: usize) -> Self {
                Self::strided(data, rows, cols, 1, rows)
            }

            /// Any strides: element `(r, c)` is `data[r * row_stride + c * col_stride]`.
            ///
            /// # Panics
            /// If the matrix does not fit in `data`.
            #[track_caller]
            pub fn strided(
                data: $slice,
                rows: usize,
                cols: usize,
                row_stride: usize,
                col_stride: usize,
            ) -> Self {
                check_fits(data.len(), rows, cols, row_stride, col_stride);
                $view {
                    data,
                    rows,
                    cols,
                    row_stride,
                    col_stride,
                }
            }

            /// Rows of the matrix.
            pub fn rows(&self) -> usize {
                self.rows
            }

            /// Columns of the matrix.
            pub fn cols(&self) -> usize {
                self.cols
            }

            /// The element at `(r, c)`, `None` outside the matrix.
            #[inline]
            pub fn get(&self, r: usize, c: usize) -> Option<&T> {
                (r < self.rows && c < self.cols)
                    .then(|| &self.data[r * self.row_stride + c * self.col_stride])
            }
        }
    };
}

constructors!(Matrix, &'a [T]);
constructors!(MatrixMut, &'a mut [T]);

impl<T> MatrixMut<'_, T> {
    /// The element at `(r, c)`, mutably; `None` outside the matrix.
    #[inline]
    pub fn get_mut(&mut self, r: usize, c: usize) -> Option<&mut T> {
        (r < self.rows && c < self.cols)
            .then(|| &mut self.data[r * self.row_stride + c * self.col_stride])
    }
}

impl<X: Instr, O: Operand> Fragment<X, O> {
    /// Loads the fragment from the tile of `m` whose top-left element is
    /// `(row, col)`; a multi-block builtin's blocks are stacked down the
    /// rows (block `b` from row `row + b·rows`), as a GEMM's wave tile is.
    /// Elements outside `m` are zero: edges need no special case. On the
    /// GPU each lane loads only its own elements.
    ///
    /// ```
    /// use mfma_core::{mfma, FragA, Matrix};
    /// type X = mfma!(f32_16x16x4f32); // A is 16 x 4
    /// let big: Vec<f32> = (0..100 * 50).map(|x| x as f32).collect();
    /// let m = Matrix::row_major(&big, 100, 50);
    /// let a = FragA::<X>::load(m, 96, 48); // reaches past both edges
    /// assert_eq!(a.at(0, 1), (96 * 50 + 49) as f32);
    /// assert_eq!(a.at(0, 2), 0.0); // column 50: outside
    /// assert_eq!(a.at(4, 0), 0.0); // row 100: outside
    /// ```
    #[inline]
    pub fn load(m: Matrix<'_, O::Elem<X>>, row: usize, col: usize) -> Self {
        let rows = Self::LAYOUT.rows;
        Self::from_fn(|b, r, c| {
            m.get(row + b * rows + r, col + c)
                .copied()
                .unwrap_or(<O::Elem<X> as Element>::ZERO)
        })
    }

    /// [`load`](Fragment::load) from f32 data, each element converted to
    /// the operand's type by [`FromF32`] (round to nearest even).
    ///
    /// ```
    /// use mfma_core::{mfma, FragB, Matrix};
    /// type X = mfma!(f32_32x32x8bf16_1k); // B is 8 x 32 bf16
    /// let data = vec![1.0f32 + 1.0 / 256.0; 8 * 32]; // halfway between two bf16
    /// let b = FragB::<X>::load_f32(Matrix::row_major(&data, 8, 32), 0, 0);
    /// assert_eq!(b.at(3, 4).to_f32(), 1.0); // the tie went to even
    /// ```
    #[inline]
    pub fn load_f32(m: Matrix<'_, f32>, row: usize, col: usize) -> Self
    where
        O::Elem<X>: FromF32,
    {
        let rows = Self::LAYOUT.rows;
        Self::from_fn(|b, r, c| {
            m.get(row + b * rows + r, col + c)
                .map_or(<O::Elem<X> as Element>::ZERO, |&x| FromF32::from_f32(x))
        })
    }
}

impl<X: Instr> Acc<X> {
    /// Stores the accumulator into the tile of `m` at `(row, col)`, blocks
    /// stacked down the rows as [`load`](Fragment::load) reads them;
    /// elements outside `m` are dropped.
    ///
    /// ```
    /// use mfma_core::{mfma, Acc, MatrixMut};
    /// type X = mfma!(f32_4x4x1f32); // 16 blocks of 4 x 4
    /// let d = Acc::<X>::from_fn(|b, i, j| (b * 100 + i * 10 + j) as f32);
    /// let mut out = vec![0.0f32; 64 * 4];
    /// d.store(MatrixMut::row_major(&mut out, 64, 4), 0, 0);
    /// assert_eq!(out[(5 * 4 + 2) * 4 + 3], 523.0); // block 5, row 2, column 3
    /// ```
    #[inline]
    pub fn store(&self, mut m: MatrixMut<'_, X::Out>, row: usize, col: usize) {
        let rows = Self::LAYOUT.rows;
        self.for_each(|b, r, c, v| {
            if let Some(x) = m.get_mut(row + b * rows + r, col + c) {
                *x = v;
            }
        });
    }

    /// Adds the accumulator into the tile of `m` at `(row, col)` (see
    /// [`store`](Acc::store)), with the element type's own addition.
    ///
    /// ```
    /// use mfma_core::{mfma, Acc, MatrixMut};
    /// type X = mfma!(i32_32x32x8i8);
    /// let mut out = vec![1i32; 40 * 40];
    /// Acc::<X>::splat(2).accumulate_into(MatrixMut::row_major(&mut out, 40, 40), 8, 8);
    /// assert_eq!((out[0], out[8 * 40 + 8], out[39 * 40 + 39]), (1, 3, 3));
    /// ```
    #[inline]
    pub fn accumulate_into(&self, mut m: MatrixMut<'_, X::Out>, row: usize, col: usize)
    where
        X::Out: core::ops::Add<Output = X::Out>,
    {
        let rows = Self::LAYOUT.rows;
        self.for_each(|b, r, c, v| {
            if let Some(x) = m.get_mut(row + b * rows + r, col + c) {
                *x = *x + v;
            }
        });
    }
}

/// An element type f32 data converts to, rounding to nearest even.
///
/// f32 and xf32 keep the value (xf32 keeps every bit: the instruction
/// truncates to tf32 itself), f64 widens exactly, f16 and bf16 round, and
/// the 8-bit FNUZ floats round with their overflow convention (NaN above
/// the largest finite, see [`Fp8::from_f32`](crate::Fp8::from_f32)).
///
/// ```
/// use mfma_core::FromF32;
/// assert_eq!(half::f16::from_f32(65520.0), half::f16::INFINITY); // rounds up past MAX
/// assert_eq!(<mfma_core::Fp8 as FromF32>::from_f32(0.3).to_f32(), 0.3125);
/// ```
pub trait FromF32: Element {
    /// `x` in this type.
    fn from_f32(x: f32) -> Self;
}

impl FromF32 for f32 {
    #[inline]
    fn from_f32(x: f32) -> f32 {
        x
    }
}

impl FromF32 for f64 {
    #[inline]
    fn from_f32(x: f32) -> f64 {
        f64::from(x)
    }
}

impl FromF32 for half::f16 {
    #[inline]
    fn from_f32(x: f32) -> Self {
        half::f16::from_f32(x)
    }
}

impl FromF32 for half::bf16 {
    #[inline]
    fn from_f32(x: f32) -> Self {
        half::bf16::from_f32(x)
    }
}

impl FromF32 for crate::Xf32 {
    #[inline]
    fn from_f32(x: f32) -> Self {
        crate::Xf32::from_f32(x)
    }
}

impl FromF32 for crate::Fp8 {
    #[inline]
    fn from_f32(x: f32) -> Self {
        crate::Fp8::from_f32(x)
    }
}

impl FromF32 for crate::Bf8 {
    #[inline]
    fn from_f32(x: f32) -> Self {
        crate::Bf8::from_f32(x)
    }
}
