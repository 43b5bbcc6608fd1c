//! On the host, `MfmaPolicy` fills fragments by copying tile windows (the
//! wave's operands in matrix order); on the GPU it loads them with
//! `Fragment::from_fn`. The kernel means the same on both paths only if the
//! two loads agree, so this test restates the GPU's loads and compares them
//! with the host's for every builtin, at positions inside the tile and
//! reaching past its edge (where reads must give zero padding).

use mfma_core::{Element, FragA, FragB, Instr, Visit};
use mfma_gemm::{ComputePolicy, MfmaPolicy, Tile};

/// Distinct, nonzero values, so a misplaced element cannot go unnoticed.
fn data<T: Element>(len: usize) -> Vec<T> {
    (0..len)
        .map(|i| T::from_bits_u64((i as u64 % 120) + 1))
        .collect()
}

struct LoadsAgree;

impl Visit for LoadsAgree {
    type Output = ();
    fn visit<X: Instr>(self) {
        type P<X> = MfmaPolicy<X>;
        let (m, k) = (X::SPEC.m, X::SPEC.k);
        let (rows, cols) = (P::<X>::THREAD_TILE_M + 3, 3 * k + 1);
        let a_data = data::<X::In>(rows * cols);
        let b_data = data::<X::In>(P::<X>::THREAD_TILE_N * cols);
        let tile_a = Tile::row_major(&a_data, rows, cols);
        let tile_b_t = Tile::row_major(&b_data, P::<X>::THREAD_TILE_N, cols);
        // Inside the tile, and windows crossing its last rows and columns.
        for (row, ki) in [(0, 0), (0, k), (3, 2 * k), (1, 3 * k)] {
            let host = P::<X>::load_a(&tile_a, row, ki);
            let gpu = FragA::<X>::from_fn(|b, i, kk| tile_a.get(row + b * m + i, ki + kk));
            assert_eq!(host, gpu, "{} A at ({row}, {ki})", X::SPEC.name);
        }
        for (col, ki) in [(0, 0), (0, 2 * k), (0, 3 * k)] {
            let host = P::<X>::load_b(&tile_b_t, col, ki);
            let gpu = FragB::<X>::from_fn(|_, kk, j| {
                X::InB::from_bits_u64(tile_b_t.get(col + j, ki + kk).to_bits_u64())
            });
            assert_eq!(host, gpu, "{} B at ({col}, {ki})", X::SPEC.name);
        }
    }
}

#[test]
fn host_window_loads_equal_the_gpu_from_fn_loads() {
    // Every builtin a GEMM of one input type can use: all but the mixed
    // fp8/bf8, and the SMFMAC ones (a sparse A; `visit` does not give them).
    for b in mfma_core::spec::ARCHS.iter().flat_map(|a| a.builtins) {
        if b.a_type == b.b_type && !b.is_sparse() {
            let name = b.path().to_string();
            mfma_core::visit(&name, LoadsAgree).expect("a builtin of the table");
        }
    }
}
