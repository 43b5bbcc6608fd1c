// A misspelt SMFMAC gets the closest SMFMAC; an SMFMAC named without its
// architecture is looked up in CDNA2, which has none.
use mfma_core::mfma;

type X = mfma!(cdna3::smfmac_f32_16x16x32_fp16);
type Y = mfma!(smfmac_f32_16x16x32_f16);

fn main() {}
