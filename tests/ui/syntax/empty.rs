use mfma_core::mfma;

type X = mfma!();

fn main() {
    let _ = mfma!();
}
