// The name form is a type wherever a type goes, including const contexts.
use mfma_core::spec::{Coord, Slot};
use mfma_core::{mfma, Acc, Instr};

const WHERE: Slot = <mfma!(f32_32x32x8bf16_1k)>::C.slot(Coord::new(0, 5, 7));

fn blocks<X: Instr>() -> usize {
    X::SPEC.blocks
}

struct Holder {
    acc: Acc<mfma!(f64_16x16x4f64)>,
}

fn main() {
    assert_eq!(
        <mfma!(f32_32x32x8bf16_1k)>::C.coord(WHERE),
        Coord::new(0, 5, 7)
    );
    assert_eq!(
        blocks::<mfma!(f64_4x4x4f64)>(),
        <mfma!(f64_4x4x4f64)>::BLOCKS
    );
    // The HIP and ISA spellings name the same type.
    let h = Holder {
        acc: Acc::<mfma!(__builtin_amdgcn_mfma_f64_16x16x4f64)>::zero(),
    };
    let _: Acc<mfma!(v_mfma_f64_16x16x4f64)> = h.acc;
    assert_eq!(
        core::any::type_name::<mfma!(v_mfma_f64_16x16x4f64)>(),
        core::any::type_name::<mfma!(f64_16x16x4f64)>()
    );
}
