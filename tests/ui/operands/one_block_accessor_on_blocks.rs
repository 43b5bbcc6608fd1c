// `at(row, col)` is for 1-block builtins: with several blocks, say which.
use mfma_core::{mfma, Acc};

type X = mfma!(f32_16x16x4f16); // 4 blocks

fn main() {
    let c = Acc::<X>::zero();
    let _ = c.at(1, 2);
}
