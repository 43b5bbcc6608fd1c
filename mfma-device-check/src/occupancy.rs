//! Waves per SIMD a kernel can keep resident on gfx90a and gfx942, from
//! its registers, its workgroup size and the LDS a workgroup holds: the
//! rules of LLVM's `AMDGPUBaseInfo`/`GCNSubtarget` for these targets.
//!
//! * At most 8 waves per SIMD.
//! * One unified file of 512 VGPRs per lane: the architectural VGPRs, then
//!   from the next multiple of 4 the AGPRs; allocated in granules of 8.
//! * SGPRs: at most 80 for 10 waves, 88 for 9, 100 for 8, else 7.
//! * 64 KiB of LDS per compute unit, allocated in 512-byte granules; a
//!   workgroup's waves spread over the CU's 4 SIMDs.

/// Waves per SIMD at most.
pub const MAX_WAVES: u32 = 8;
/// VGPRs per lane of a SIMD (architectural and accumulation together).
pub const VGPR_FILE: u32 = 512;
/// VGPR allocation granule.
const VGPR_GRANULE: u32 = 8;
/// LDS of a compute unit, the most one workgroup may use.
pub const LDS_PER_CU: u32 = 65536;
/// LDS allocation granule.
const LDS_GRANULE: u32 = 512;
/// SIMDs per compute unit.
const SIMDS: u32 = 4;
/// Lanes per wave.
const WAVE: u32 = 64;

/// What a kernel uses, per wave and per workgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Architectural VGPRs (`.vgpr_count`).
    pub vgpr: u32,
    /// Accumulation VGPRs (`.agpr_count`).
    pub agpr: u32,
    /// SGPRs (`.sgpr_count`).
    pub sgpr: u32,
    /// Threads per workgroup.
    pub workgroup: u32,
    /// LDS per workgroup, static and dynamic, in bytes.
    pub lds: u32,
}

/// What limits the occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    /// Nothing below the hardware's maximum.
    None,
    /// The VGPR file.
    Vgpr,
    /// The SGPR file.
    Sgpr,
    /// LDS.
    Lds,
}

impl Limiter {
    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Limiter::None => "-",
            Limiter::Vgpr => "VGPR",
            Limiter::Sgpr => "SGPR",
            Limiter::Lds => "LDS",
        }
    }
}

/// Registers of the unified file one wave holds: the AGPRs start at the
/// next multiple of 4 after the architectural VGPRs.
pub fn unified_vgprs(vgpr: u32, agpr: u32) -> u32 {
    if agpr == 0 {
        vgpr
    } else {
        vgpr.next_multiple_of(4) + agpr
    }
}

/// Waves per SIMD the registers allow (whatever the LDS).
pub fn by_registers(u: Usage) -> (u32, Limiter) {
    let total = unified_vgprs(u.vgpr, u.agpr).max(1);
    let vgpr = (VGPR_FILE / total.next_multiple_of(VGPR_GRANULE)).clamp(1, MAX_WAVES);
    let sgpr = match u.sgpr {
        0..=80 => 10,
        81..=88 => 9,
        89..=100 => 8,
        _ => 7,
    }
    .min(MAX_WAVES);
    match (vgpr.min(sgpr), vgpr <= sgpr) {
        (MAX_WAVES, _) => (MAX_WAVES, Limiter::None),
        (w, true) => (w, Limiter::Vgpr),
        (w, false) => (w, Limiter::Sgpr),
    }
}

/// Waves per SIMD, and what limits them; 0 if a workgroup's LDS exceeds
/// the compute unit's.
///
/// ```
/// use mfma_device_check::occupancy::{waves, Limiter, Usage};
/// // 4 waves of 62 VGPRs staging 16 KiB: 4 workgroups per CU, 16 waves on 4 SIMDs.
/// let u = Usage { vgpr: 62, agpr: 0, sgpr: 68, workgroup: 256, lds: 16384 };
/// assert_eq!(waves(u), (4, Limiter::Lds));
/// ```
pub fn waves(u: Usage) -> (u32, Limiter) {
    let (regs, why) = by_registers(u);
    if u.lds == 0 {
        return (regs, why);
    }
    let lds = u.lds.next_multiple_of(LDS_GRANULE);
    if lds > LDS_PER_CU {
        return (0, Limiter::Lds);
    }
    let groups = LDS_PER_CU / lds;
    let by_lds = (groups * u.workgroup.div_ceil(WAVE) / SIMDS).clamp(1, MAX_WAVES);
    if by_lds < regs {
        (by_lds, Limiter::Lds)
    } else {
        (regs, why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(vgpr: u32, agpr: u32, sgpr: u32, workgroup: u32, lds: u32) -> Usage {
        Usage {
            vgpr,
            agpr,
            sgpr,
            workgroup,
            lds,
        }
    }

    #[test]
    fn vgprs_in_granules_of_eight_of_a_file_of_512() {
        assert_eq!(waves(usage(64, 0, 10, 64, 0)), (8, Limiter::None));
        assert_eq!(waves(usage(65, 0, 10, 64, 0)), (7, Limiter::Vgpr)); // 72 → 512/72
        assert_eq!(waves(usage(128, 0, 10, 64, 0)), (4, Limiter::Vgpr));
        assert_eq!(waves(usage(256, 0, 10, 64, 0)), (2, Limiter::Vgpr));
        assert_eq!(waves(usage(512, 0, 10, 64, 0)), (1, Limiter::Vgpr));
    }

    #[test]
    fn agprs_start_at_a_multiple_of_four() {
        assert_eq!(unified_vgprs(61, 0), 61);
        assert_eq!(unified_vgprs(61, 3), 67);
        // 126 + 130 would be 256 registers, 2 waves; aligned it is
        // 128 + 130 = 258, 264 allocated: one wave.
        assert_eq!(waves(usage(126, 130, 10, 64, 0)), (1, Limiter::Vgpr));
        assert_eq!(waves(usage(124, 132, 10, 64, 0)), (2, Limiter::Vgpr));
    }

    #[test]
    fn sgprs_by_the_table() {
        assert_eq!(by_registers(usage(8, 0, 100, 64, 0)), (8, Limiter::None));
        assert_eq!(by_registers(usage(8, 0, 101, 64, 0)), (7, Limiter::Sgpr));
    }

    #[test]
    fn lds_by_workgroups_per_cu_spread_over_four_simds() {
        // 24 KiB: two workgroups of 4 waves on 4 SIMDs.
        assert_eq!(waves(usage(40, 0, 40, 256, 24576)), (2, Limiter::Lds));
        // 33 KiB: one workgroup.
        assert_eq!(waves(usage(40, 0, 40, 256, 33 * 1024)), (1, Limiter::Lds));
        // A granule: 16 KiB + 1 byte takes 16.5 KiB, 3 workgroups.
        assert_eq!(waves(usage(40, 0, 40, 256, 16385)), (3, Limiter::Lds));
        // More than the CU has: it cannot run.
        assert_eq!(waves(usage(40, 0, 40, 256, 65537)), (0, Limiter::Lds));
        // Registers below LDS: registers limit.
        assert_eq!(waves(usage(200, 0, 40, 256, 8192)), (2, Limiter::Vgpr));
    }
}
