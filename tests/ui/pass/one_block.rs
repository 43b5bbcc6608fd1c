// 1-block builtins take (row, col) where a block index would always be 0.
use mfma_core::spec::Coord;
use mfma_core::{mfma, Acc};

type X = mfma!(cdna3::f32_16x16x16f16);

const WHERE: mfma_core::Slot = X::C.slot(Coord::at(5, 7));

fn main() {
    let mut c = Acc::<X>::zero();
    c.set_at(5, 7, 2.5);
    assert_eq!(c.at(5, 7), c.get(0, 5, 7));
    assert_eq!(c.slot(WHERE.lane, WHERE.item), 2.5);
}
