// cbsz is at most log2(blocks): 1, 2 and 4 for 2, 4 and 16 blocks.
use mfma_core::{mfma, Acc, FragA, FragB};

type Two = mfma!(f32_32x32x4bf16_1k);
type Four = mfma!(i32_16x16x4i8);
type Sixteen = mfma!(f32_4x4x1f32);

fn main() {
    let (a, b, c) = (
        FragA::<Two>::zero(),
        FragB::<Two>::zero(),
        Acc::<Two>::zero(),
    );
    let _ = mfma!(f32_32x32x4bf16_1k(a, b, c, cbsz = 2));

    let (a, b, c) = (
        FragA::<Four>::zero(),
        FragB::<Four>::zero(),
        Acc::<Four>::zero(),
    );
    let _ = mfma!(i32_16x16x4i8(a, b, c, cbsz = 3, abid = 1));

    let (a, b, c) = (
        FragA::<Sixteen>::zero(),
        FragB::<Sixteen>::zero(),
        Acc::<Sixteen>::zero(),
    );
    let _ = mfma!(f32_4x4x1f32(a, b, c, cbsz = 8));
}
