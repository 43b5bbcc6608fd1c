//! What the probe runs call sites on: a GPU through the HIP launcher, or
//! the software path standing in for one (a dry run, and the "device" of
//! the tests, which can also be told to get things wrong).

use super::values::{from_bytes, to_bytes};
use mfma_core::soft::{execute_dynamic, execute_sparse_dynamic};
use mfma_core::{Element, FragIdx, Fragment, Instr, Operand as Op, SparseInstr, Visit};
use mfma_hip::Site;
use mfma_spec::{Arch, Builtin, Coord, Modifiers, Operand, Slot};

/// Facts about the device for the report.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct DeviceInfo {
    /// `hip` or `software`.
    pub kind: String,
    /// The target as the device reports it (`gfx942:sramecc+:xnack-`).
    pub arch_name: String,
    /// The spec's architecture (`cdna3`).
    pub arch: String,
    /// The HIP runtime library opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// `hipRuntimeGetVersion`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_version: Option<i32>,
    /// The code object run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_object: Option<String>,
    /// Its code object version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_object_version: Option<u32>,
}

/// Runs call-site kernels: `D = A·B + C` of one instruction.
pub trait Device {
    /// What it is, for the report.
    fn info(&self) -> DeviceInfo;
    /// The architecture whose builtins it runs.
    fn arch(&self) -> &'static Arch;
    /// The call sites it can run (builtin and compiled modifiers).
    fn sites(&self) -> Vec<Site>;
    /// Runs `site` on `inputs` (A, B, C and for SMFMAC the index, each
    /// `[block][row][col]` as [`mfma_hip::operand_bytes`] sizes them) and
    /// returns D's bytes.
    fn run(&mut self, site: &Site, inputs: &[Vec<u8>]) -> Result<Vec<u8>, String>;
}

/// A GPU, through `mfma-hip`.
pub struct Hip {
    gpu: mfma_hip::Gpu,
    module: mfma_hip::Module,
}

impl Hip {
    /// The GPU and its target's code object.
    pub fn open() -> mfma_hip::Result<Hip> {
        let (gpu, module) = mfma_hip::open()?;
        Ok(Hip { gpu, module })
    }
}

impl Device for Hip {
    fn info(&self) -> DeviceInfo {
        let cat = self.module.catalog();
        DeviceInfo {
            kind: "hip".into(),
            arch_name: self.gpu.arch_name().into(),
            arch: self.arch().name.into(),
            library: Some(self.gpu.library().into()),
            runtime_version: Some(self.gpu.runtime_version()),
            code_object: Some(cat.path.display().to_string()),
            code_object_version: Some(cat.version),
        }
    }

    fn arch(&self) -> &'static Arch {
        self.gpu
            .target()
            .arch()
            .expect("mfma_hip::open refuses other targets")
    }

    fn sites(&self) -> Vec<Site> {
        self.module.catalog().sites.clone()
    }

    fn run(&mut self, site: &Site, inputs: &[Vec<u8>]) -> Result<Vec<u8>, String> {
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        self.module
            .run_site(&self.gpu, site, &refs)
            .map_err(|e| e.to_string())
    }
}

/// Ways the software device can be told to differ from the spec, so that
/// tests see the probe find and describe each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))] // only the tests get things wrong
pub enum Fault {
    /// None: the software path as it is.
    None,
    /// Operand `operand` is read with the items of lanes `lanes.0` and
    /// `lanes.1` exchanged: a layout that is not the spec's.
    SwapLanes {
        /// The operand.
        operand: Operand,
        /// The two lanes.
        lanes: (usize, usize),
    },
    /// The modifiers are ignored (cbsz, abid, blgp, negation all zero).
    IgnoreModifiers,
    /// Every NaN output gets another payload and sign (not a mismatch:
    /// NaNs compare by class).
    OtherNaN,
    /// Subnormal outputs become +0.
    FlushOutputs,
}

/// The software path as a device: every builtin of `arch` with the
/// modifier sets [`mfma_spec::sample_modifiers`] gives, as the device build
/// compiles them.
pub struct Software {
    arch: &'static Arch,
    fault: Fault,
}

impl Software {
    /// The software path of `arch`, as it is.
    pub fn new(arch: &'static Arch) -> Software {
        Software {
            arch,
            fault: Fault::None,
        }
    }

    /// The software path of `arch`, getting `fault` wrong.
    #[cfg(test)]
    pub fn faulty(arch: &'static Arch, fault: Fault) -> Software {
        Software { arch, fault }
    }
}

/// The call sites of `arch` the software device offers.
pub fn software_sites(arch: &'static Arch) -> Vec<Site> {
    let mut sites = Vec::new();
    for b in arch.builtins {
        for m in mfma_spec::sample_modifiers(b) {
            let [c, a, f] = m.immediates(b);
            sites.push(Site {
                kernel: format!("mfma_{}__{c}_{a}_{f}", b.name),
                builtin: b,
                modifiers: m,
            });
        }
    }
    sites
}

impl Device for Software {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            kind: "software".into(),
            arch_name: self
                .arch
                .targets
                .first()
                .copied()
                .unwrap_or_default()
                .into(),
            arch: self.arch.name.into(),
            ..DeviceInfo::default()
        }
    }

    fn arch(&self) -> &'static Arch {
        self.arch
    }

    fn sites(&self) -> Vec<Site> {
        software_sites(self.arch)
    }

    fn run(&mut self, site: &Site, inputs: &[Vec<u8>]) -> Result<Vec<u8>, String> {
        let b = site.builtin;
        let ops = &site.operands()[..site.operands().len() - 1];
        if inputs.len() != ops.len() {
            return Err(format!("{} inputs, expected {}", inputs.len(), ops.len()));
        }
        let mut bits: Vec<Vec<u64>> = Vec::new();
        for (&op, bytes) in ops.iter().zip(inputs) {
            if bytes.len() != mfma_hip::operand_bytes(b, op) {
                return Err(format!("operand {} has {} bytes", op.name(), bytes.len()));
            }
            let mut v = from_bytes(b.elem(op), bytes);
            if let Fault::SwapLanes { operand, lanes } = self.fault {
                if operand == op {
                    v = swap_lanes(b.layout(op), &v, lanes);
                }
            }
            bits.push(v);
        }
        let modifiers = match self.fault {
            Fault::IgnoreModifiers => Modifiers::NONE,
            _ => site.modifiers,
        };
        let exec = Exec {
            modifiers,
            bits: &bits,
        };
        let mut d = mfma_core::visit_builtin(b, exec).ok_or("not a builtin of mfma-core")??;
        let t = b.cd;
        for x in &mut d {
            match self.fault {
                Fault::OtherNaN if super::values::is_nan(t, *x) => {
                    *x ^= 1 | 1 << (t.bits() - 1);
                    if !super::values::is_nan(t, *x) {
                        *x ^= 2; // a payload of 0 would be infinity
                    }
                }
                Fault::FlushOutputs
                    if t.is_float() && super::values::value(t, *x) != 0.0 && {
                        let v = super::values::value(t, *x).abs();
                        v < if t == mfma_spec::ElemType::F64 {
                            f64::MIN_POSITIVE
                        } else {
                            f64::from(f32::MIN_POSITIVE)
                        }
                    } =>
                {
                    *x = 0
                }
                _ => {}
            }
        }
        Ok(to_bytes(t, &d))
    }
}

/// `v` (an operand's elements, matrix order) with the items of two lanes
/// exchanged.
fn swap_lanes(l: &mfma_spec::Layout, v: &[u64], (x, y): (usize, usize)) -> Vec<u64> {
    let mut out = v.to_vec();
    for (idx, slot) in (0..l.elements()).map(|i| (i, l.slot(l.delinear(i)))) {
        let other = match slot.lane {
            lane if lane == x => y,
            lane if lane == y => x,
            _ => continue,
        };
        let from = l.coord(Slot {
            lane: other,
            item: slot.item,
        });
        out[idx] = v[l.linear(from)];
    }
    out
}

/// One call on the software path, the operands as bit patterns.
struct Exec<'a> {
    modifiers: Modifiers,
    bits: &'a [Vec<u64>],
}

fn fragment<X: Instr, O: Op>(bits: &[u64]) -> Fragment<X, O> {
    let l = Fragment::<X, O>::LAYOUT;
    Fragment::from_fn(|blk, r, c| {
        O::Elem::<X>::from_bits_u64(bits[l.linear(Coord::new(blk, r, c))])
    })
}

fn d_bits<X: Instr>(d: &Fragment<X, mfma_core::C>) -> Vec<u64> {
    let mut out = vec![0; Fragment::<X, mfma_core::C>::LAYOUT.elements()];
    let l = Fragment::<X, mfma_core::C>::LAYOUT;
    d.for_each(|blk, r, c, v| out[l.linear(Coord::new(blk, r, c))] = v.to_bits_u64());
    out
}

impl Visit for Exec<'_> {
    type Output = Result<Vec<u64>, String>;

    fn visit<X: Instr>(self) -> Result<Vec<u64>, String> {
        let a = fragment::<X, mfma_core::A>(&self.bits[0]);
        let b = fragment::<X, mfma_core::B>(&self.bits[1]);
        let mut d = fragment::<X, mfma_core::C>(&self.bits[2]);
        execute_dynamic::<X>(self.modifiers, &a, &b, &mut d).map_err(|e| e.to_string())?;
        Ok(d_bits(&d))
    }

    fn visit_sparse<X: SparseInstr>(self) -> Option<Result<Vec<u64>, String>> {
        let a = fragment::<X, mfma_core::A>(&self.bits[0]);
        let b = fragment::<X, mfma_core::B>(&self.bits[1]);
        let mut d = fragment::<X, mfma_core::C>(&self.bits[2]);
        let idx: FragIdx<X> = fragment::<X, mfma_core::Idx>(&self.bits[3]);
        // The software path refuses a field whose two positions are equal;
        // the probe never makes one, but say so rather than panic.
        let sp = X::SPEC.sparse?;
        let set = sp.index_set(self.modifiers);
        let l = sp.idx;
        for i in 0..l.rows {
            for g in 0..l.cols {
                let f = self.bits[3][l.linear(Coord::new(set, i, g))];
                if f & 3 == (f >> 2) & 3 {
                    return Some(Err(format!(
                        "index field (set {set}, row {i}, group {g}) repeats position {}",
                        f & 3
                    )));
                }
            }
        }
        Some(
            execute_sparse_dynamic::<X>(self.modifiers, &a, &b, &mut d, &idx)
                .map_err(|e| e.to_string())
                .map(|()| d_bits(&d)),
        )
    }
}

/// The builtin's operands other than D, in kernel argument order.
pub fn inputs_of(b: &Builtin) -> &'static [Operand] {
    if b.is_sparse() {
        &[Operand::A, Operand::B, Operand::C, Operand::Idx]
    } else {
        &[Operand::A, Operand::B, Operand::C]
    }
}
