//! Fragments from and to tiles of larger matrices, for every builtin of
//! every architecture: `load` reads the element a hand-written index
//! computes (blocks stacked down the rows, zero outside), from row-major
//! and column-major storage with a leading dimension; `store` and
//! `accumulate_into` write exactly the tile's elements inside the matrix and
//! nothing else; `load_f32` converts element by element.

use mfma_core::spec::ARCHS;
use mfma_core::{Acc, Element, FragA, FragB, FromF32, Instr, Matrix, MatrixMut, Visit};

/// Distinct values (bits cycle through the type's range; 0 never appears,
/// so zero padding is told apart from data).
fn value<T: Element>(n: usize) -> T {
    T::from_bits_u64((n % 113) as u64 + 1)
}

struct Tiles;

impl Visit for Tiles {
    type Output = ();
    /// SMFMAC's A tile is its compressed M × K/2 values, loaded as any other.
    fn visit_sparse<X: mfma_core::SparseInstr>(self) -> Option<()> {
        self.visit::<X>();
        Some(())
    }
    fn visit<X: Instr>(self) {
        let s = X::SPEC;
        // A matrix wider than its rows, and a leading dimension larger still.
        let (rows, cols, ld) = (s.blocks * s.m + 5, s.k.max(s.n) + 7, s.k.max(s.n) + 11);
        let ld_col = rows + 3;
        let a_data: Vec<X::In> = (0..rows * ld).map(value).collect();
        let col_data: Vec<X::InB> = (0..cols * ld_col).map(value).collect();
        let row_major = Matrix::row_major_ld(&a_data, rows, cols, ld);
        let col_major = Matrix::col_major_ld(&col_data, rows, cols, ld_col);
        // Tiles inside, and reaching past the last rows and columns.
        for (r0, c0) in [(0, 0), (3, 2), (rows - 2, cols - 1), (rows, 0)] {
            let a = FragA::<X>::load(row_major, r0, c0);
            let want = FragA::<X>::from_fn(|b, i, k| {
                let (r, c) = (r0 + b * s.m + i, c0 + k);
                if r < rows && c < cols {
                    a_data[r * ld + c]
                } else {
                    X::In::ZERO
                }
            });
            assert_eq!(a, want, "{} A at ({r0}, {c0})", s.path());
            let b = FragB::<X>::load(col_major, r0, c0);
            let want = FragB::<X>::from_fn(|blk, k, j| {
                let (r, c) = (r0 + blk * s.k + k, c0 + j);
                if r < rows && c < cols {
                    col_data[c * ld_col + r]
                } else {
                    X::InB::ZERO
                }
            });
            assert_eq!(b, want, "{} B at ({r0}, {c0})", s.path());
        }
        // Stores: the tile's elements inside the matrix, nothing else.
        let acc = Acc::<X>::from_fn(|b, i, j| value(b * 1000 + i * 37 + j + 5));
        let (rows, cols) = (s.blocks * s.m + 3, s.n + 2);
        for (r0, c0) in [(0, 0), (2, 1), (rows - 1, cols - 1)] {
            let mut out = vec![X::Out::ZERO; rows * cols];
            acc.store(MatrixMut::row_major(&mut out, rows, cols), r0, c0);
            for r in 0..rows {
                for c in 0..cols {
                    let (b, i, j) = (
                        (r.wrapping_sub(r0)) / s.m,
                        (r.wrapping_sub(r0)) % s.m,
                        c.wrapping_sub(c0),
                    );
                    let inside = r >= r0 && c >= c0 && b < s.blocks && j < s.n;
                    let want = if inside {
                        acc.get(b, i, j)
                    } else {
                        X::Out::ZERO
                    };
                    assert_eq!(
                        out[r * cols + c],
                        want,
                        "{} store at ({r0}, {c0}): ({r}, {c})",
                        s.path()
                    );
                }
            }
        }
    }
}

#[test]
fn tiles_load_and_store_where_the_indices_say() {
    for x in ARCHS.iter().flat_map(|a| a.builtins) {
        mfma_core::visit_builtin(x, Tiles).unwrap();
    }
}

#[test]
fn accumulating_adds_into_the_tile_only() {
    type X = mfma_core::mfma!(cdna3::f32_16x16x4f32);
    let acc = Acc::<X>::from_fn(|_, i, j| (i * 16 + j) as f32);
    let mut out = vec![0.5f32; 20 * 20];
    acc.accumulate_into(MatrixMut::row_major(&mut out, 20, 20), 10, 10);
    for r in 0..20 {
        for c in 0..20 {
            let want = if r >= 10 && c >= 10 {
                0.5 + ((r - 10) * 16 + c - 10) as f32
            } else {
                0.5
            };
            assert_eq!(out[r * 20 + c], want, "({r}, {c})");
        }
    }
}

/// `load_f32` is `load` of the element-wise conversion (round to nearest
/// even), for a builtin of every input type (A and B of the mixed fp8/bf8
/// one each through their own type).
fn load_f32_converts_each_element<X: Instr>()
where
    X::In: FromF32,
    X::InB: FromF32,
{
    let s = X::SPEC;
    let (rows, cols) = (s.blocks * s.m.max(s.k), s.k.max(s.n));
    // Values between representable ones of every format, ties included.
    let data: Vec<f32> = (0..rows * cols)
        .map(|n| ((n * 7919) % 4001) as f32 / 64.0 - 31.0)
        .collect();
    let m = Matrix::row_major(&data, rows, cols);
    let a = FragA::<X>::load_f32(m, 1, 0);
    let want = FragA::<X>::from_fn(|b, i, k| {
        let (r, c) = (1 + b * s.m + i, k);
        if r < rows {
            X::In::from_f32(data[r * cols + c])
        } else {
            X::In::ZERO
        }
    });
    assert_eq!(a, want, "{} A", s.path());
    let b = FragB::<X>::load_f32(m, 0, 1);
    let want = FragB::<X>::from_fn(|blk, k, j| {
        let (r, c) = (blk * s.k + k, 1 + j);
        if r < rows && c < cols {
            X::InB::from_f32(data[r * cols + c])
        } else {
            X::InB::ZERO
        }
    });
    assert_eq!(b, want, "{} B", s.path());
}

#[test]
fn f32_data_loads_into_every_input_type() {
    use mfma_core::mfma;
    load_f32_converts_each_element::<mfma!(f32_32x32x2f32)>();
    load_f32_converts_each_element::<mfma!(f64_4x4x4f64)>();
    load_f32_converts_each_element::<mfma!(f32_16x16x4f16)>();
    load_f32_converts_each_element::<mfma!(f32_32x32x4bf16)>();
    load_f32_converts_each_element::<mfma!(cdna3::f32_32x32x4_xf32)>();
    load_f32_converts_each_element::<mfma!(cdna3::f32_16x16x32_fp8_bf8)>();
}
