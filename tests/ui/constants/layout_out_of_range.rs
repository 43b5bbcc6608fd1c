// A layout lookup outside the operand's matrices is a compile error in a
// const, naming the operand and the ranges (at run time, the same panic).
use mfma_core::spec::{Coord, Slot};
use mfma_core::mfma;

type X = mfma!(f32_32x32x8bf16_1k);

const OUTSIDE: Slot = X::C.slot(Coord::new(0, 5, 40));
const NO_SUCH_LANE: Coord = X::A.coord(Slot { lane: 64, item: 0 });

fn main() {
    let _ = (OUTSIDE, NO_SUCH_LANE);
}
