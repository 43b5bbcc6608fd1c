//! Reading the verbose assembly rustc emits for amdgcn (`--emit asm
//! -Zverbose-asm`): functions, their blocks and instructions, the loops
//! LLVM's loop analysis annotates them with, and LLVM's own occupancy note
//! per kernel.

use std::collections::HashMap;

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// 1-based line in the file, for messages.
    pub line: usize,
    /// `v_mfma_f32_32x32x8_f16`, `s_barrier`, ...
    pub mnemonic: String,
    /// The whole instruction without its comment, single-spaced.
    pub text: String,
}

impl Instr {
    /// Whether this is a matrix-core instruction.
    pub fn is_mfma(&self) -> bool {
        self.mnemonic.starts_with("v_mfma") || self.mnemonic.starts_with("v_smfmac")
    }

    /// Whether this reads LDS.
    pub fn is_lds_read(&self) -> bool {
        self.mnemonic.starts_with("ds_read") || self.mnemonic.starts_with("ds_load")
    }

    /// Whether this writes LDS.
    pub fn is_lds_write(&self) -> bool {
        self.mnemonic.starts_with("ds_write") || self.mnemonic.starts_with("ds_store")
    }

    /// Whether this is a wait that drains LDS (and scalar memory) accesses.
    pub fn waits_for_lds(&self) -> bool {
        self.mnemonic == "s_waitcnt" && self.text.contains("lgkmcnt(0)")
    }

    /// The modifiers LLVM prints after an MFMA's operands (`cbsz:1`,
    /// `neg:[1,0,1]`), space-separated, in order; empty for none.
    pub fn modifiers(&self) -> String {
        const KEYS: [&str; 4] = ["cbsz:", "abid:", "blgp:", "neg:"];
        self.text
            .split(' ')
            .skip(1)
            .filter(|w| KEYS.iter().any(|k| w.starts_with(k)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The operands, without the modifiers (`v[0:3]`, `v[4:5]`, ...).
    pub fn operands(&self) -> Vec<&str> {
        let rest = self.text.split_once(' ').map_or("", |(_, r)| r);
        rest.split(", ")
            .map(|o| o.split(' ').next().unwrap_or(""))
            .filter(|o| !o.is_empty())
            .collect()
    }

    /// SMFMAC: whether the index (the operand after C) is one VGPR, as the
    /// encoding requires (reference CDNA3 1.2: it takes C's register field).
    pub fn index_in_a_vgpr(&self) -> bool {
        let ops = self.operands();
        ops.len() == 4 && {
            let idx = ops[3];
            idx.len() > 1 && idx.starts_with('v') && idx[1..].bytes().all(|b| b.is_ascii_digit())
        }
    }

    /// The block label a branch goes to, if this is a branch to one.
    pub fn branch_target(&self) -> Option<&str> {
        let branch = self.mnemonic == "s_branch" || self.mnemonic.starts_with("s_cbranch_");
        let target = self.text.split(' ').nth(1)?;
        (branch && target.starts_with(".L")).then_some(target)
    }
}

/// A line of a function body that matters here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A block label (`.LBB0_3`), a branch target.
    Label(String),
    /// An instruction, with the index of its block in [`Function::blocks`].
    Instr(Instr, usize),
}

/// A basic block, with where LLVM's loop analysis puts it (the comments of
/// verbose assembly: `=>This Loop Header`, `in Loop: Header=BB3_65`,
/// `Parent Loop BB3_65`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// `.LBB3_65`, or `%bb.7` for a block no branch targets.
    pub name: String,
    /// The comments on its label line and the comment lines after it.
    pub notes: String,
}

impl Block {
    /// The header of the innermost loop holding this block (`.LBB3_65`).
    pub fn innermost_loop(&self) -> Option<String> {
        if self.notes.contains("Loop Header:") {
            return Some(self.name.clone());
        }
        let at = self.notes.find("in Loop: Header=")? + "in Loop: Header=".len();
        let bb = self.notes[at..].split_whitespace().next()?;
        Some(format!(".L{bb}"))
    }

    /// For a loop header, the headers of the loops around its loop,
    /// outermost first.
    fn parents(&self) -> Vec<String> {
        self.notes
            .split("Parent Loop ")
            .skip(1)
            .filter_map(|s| s.split_whitespace().next())
            .map(|bb| format!(".L{bb}"))
            .collect()
    }
}

/// A function of the assembly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Its symbol.
    pub name: String,
    /// Labels and instructions in order.
    pub body: Vec<Item>,
    /// Its basic blocks in order; the entry block first.
    pub blocks: Vec<Block>,
    /// LLVM's `; Occupancy: N` note of its kernel descriptor: waves per
    /// SIMD as registers allow, not counting dynamic LDS.
    pub llvm_occupancy: Option<u32>,
}

impl Function {
    /// The instructions, in order.
    pub fn instrs(&self) -> impl Iterator<Item = &Instr> {
        self.body.iter().filter_map(|i| match i {
            Item::Instr(x, _) => Some(x),
            Item::Label(_) => None,
        })
    }

    /// The loops holding block `b`, innermost first (their headers).
    pub fn loops_of(&self, b: usize) -> Vec<String> {
        let Some(inner) = self.blocks[b].innermost_loop() else {
            return Vec::new();
        };
        let parents = self
            .blocks
            .iter()
            .find(|x| x.name == inner)
            .map(Block::parents)
            .unwrap_or_default();
        std::iter::once(inner)
            .chain(parents.into_iter().rev())
            .collect()
    }

    /// The instructions of the loop whose header is `header`, nested loops
    /// included.
    pub fn loop_instrs<'a>(
        &'a self,
        header: &'a str,
    ) -> impl Iterator<Item = (usize, &'a Instr)> + 'a {
        self.body
            .iter()
            .enumerate()
            .filter_map(move |(i, item)| match item {
                Item::Instr(x, b) if self.loops_of(*b).iter().any(|h| h == header) => Some((i, x)),
                _ => None,
            })
    }

    /// The outermost loop holding body item `i`.
    pub fn outermost_loop(&self, i: usize) -> Option<String> {
        match &self.body[i] {
            Item::Instr(_, b) => self.loops_of(*b).pop(),
            Item::Label(_) => None,
        }
    }

    /// The blocks control can go to from block `b`: its branch targets,
    /// and the next block unless it ends in an unconditional branch or the
    /// end of the program.
    pub fn successors(&self, b: usize) -> Vec<usize> {
        let index = |name: &str| self.blocks.iter().position(|x| x.name == name);
        let instrs: Vec<&Instr> = self
            .body
            .iter()
            .filter_map(|i| match i {
                Item::Instr(x, at) if *at == b => Some(x),
                _ => None,
            })
            .collect();
        let mut next: Vec<usize> = instrs
            .iter()
            .filter_map(|x| x.branch_target().and_then(index))
            .collect();
        let ends = instrs.last().is_some_and(|x| {
            matches!(x.mnemonic.as_str(), "s_branch" | "s_endpgm" | "s_setpc_b64")
        });
        if !ends && b + 1 < self.blocks.len() {
            next.push(b + 1);
        }
        next
    }

    /// Whether control can go from the header of a loop around, inside the
    /// loop, back to it: the loop LLVM describes is a cycle of the code.
    pub fn cycles(&self, header: &str) -> bool {
        let inside = |b: usize| self.loops_of(b).iter().any(|h| h == header);
        let Some(start) = self.blocks.iter().position(|x| x.name == header) else {
            return false;
        };
        let mut seen = vec![false; self.blocks.len()];
        let mut todo = vec![start];
        while let Some(b) = todo.pop() {
            for n in self.successors(b) {
                if n == start {
                    return true;
                }
                if inside(n) && !seen[n] {
                    seen[n] = true;
                    todo.push(n);
                }
            }
        }
        false
    }

    /// Whether the `s_barrier` at body index `at` comes right after a wait
    /// for LDS accesses in the same block (what `__syncthreads()` is).
    pub fn barrier_waited(&self, at: usize) -> bool {
        matches!(at.checked_sub(1).map(|i| &self.body[i]), Some(Item::Instr(x, _)) if x.waits_for_lds())
    }

    /// Body indices of the `s_barrier`s.
    pub fn barriers(&self) -> Vec<usize> {
        self.body
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i, Item::Instr(x, _) if x.mnemonic == "s_barrier"))
            .map(|(i, _)| i)
            .collect()
    }

    fn start_block(&mut self, name: &str, notes: &str) {
        self.blocks.push(Block {
            name: name.to_string(),
            notes: notes.to_string(),
        });
    }
}

/// The functions of an assembly file, and any MFMA instruction found
/// outside all of them (line, text).
#[derive(Clone, Debug, Default)]
pub struct Asm {
    /// By order of appearance.
    pub functions: Vec<Function>,
    /// MFMA instructions outside any function.
    pub stray_mfma: Vec<(usize, String)>,
}

impl Asm {
    /// The function called `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}

/// Reads the assembly. Functions are the symbols declared `@function`
/// (`.type NAME,@function`), from their label to their `.Lfunc_end` label.
pub fn parse(text: &str) -> Asm {
    let mut asm = Asm::default();
    let mut declared: Vec<String> = Vec::new();
    let mut current: Option<Function> = None;
    // Whether the current block has no instruction yet: comment lines
    // until then annotate it.
    let mut block_open = false;
    // The kernel whose descriptor (`.amdhsa_kernel NAME`) was seen last:
    // LLVM's "; Kernel info:" notes follow it.
    let mut described: Option<String> = None;
    let mut occupancy: HashMap<String, u32> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let (code, comment) = raw.split_once(';').unwrap_or((raw, ""));
        let code = code.trim_end();
        if let Some(n) = comment.trim_start().strip_prefix("Occupancy:") {
            if let (Some(k), Ok(n)) = (&described, n.trim().parse()) {
                occupancy.insert(k.clone(), n);
            }
            continue;
        }
        if code.trim().is_empty() {
            // A block without a label (`; %bb.7:`), or notes on the block.
            if let Some(f) = &mut current {
                let c = comment.trim_start();
                if let Some(bb) = c.strip_prefix("%bb.") {
                    let (name, notes) = bb.split_once(':').unwrap_or((bb, ""));
                    f.start_block(&format!("%bb.{name}"), notes);
                    block_open = true;
                } else if block_open {
                    if let Some(b) = f.blocks.last_mut() {
                        b.notes.push_str(comment);
                    }
                }
            }
            continue;
        }
        let words: Vec<&str> = code.split_whitespace().collect();
        if !raw.starts_with(char::is_whitespace) {
            // A label at column 0.
            let Some(label) = code.strip_suffix(':') else {
                continue;
            };
            if label.starts_with(".Lfunc_end") {
                asm.functions.extend(current.take());
            } else if declared.iter().any(|d| d == label) {
                asm.functions.extend(current.take());
                let mut f = Function {
                    name: label.to_string(),
                    ..Function::default()
                };
                f.start_block(label, comment);
                current = Some(f);
                block_open = true;
            } else if let Some(f) = &mut current {
                f.body.push(Item::Label(label.to_string()));
                f.start_block(label, comment);
                block_open = true;
            }
            continue;
        }
        match words[0] {
            ".type" => {
                if let Some((name, kind)) = words.get(1).and_then(|w| w.split_once(',')) {
                    if kind == "@function" {
                        declared.push(name.to_string());
                    }
                }
            }
            ".amdhsa_kernel" => described = words.get(1).map(|s| s.to_string()),
            w if w.starts_with('.') => {}
            mnemonic => {
                let instr = Instr {
                    line,
                    mnemonic: mnemonic.to_string(),
                    text: words.join(" "),
                };
                match &mut current {
                    Some(f) => {
                        block_open = false;
                        let b = f.blocks.len() - 1;
                        f.body.push(Item::Instr(instr, b));
                    }
                    None if instr.is_mfma() => asm.stray_mfma.push((line, instr.text)),
                    None => {}
                }
            }
        }
    }
    asm.functions.extend(current.take());
    for f in &mut asm.functions {
        f.llvm_occupancy = occupancy.get(&f.name).copied();
    }
    asm
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A staged GEMM kernel's K loop as LLVM lays it out: the K step loop
    /// (with the LDS reads and the MFMA) placed after the K loop's latch.
    pub(crate) const GEMM: &str = "\t.type\tk,@function
k:                                      ; @k
\ts_load_dwordx4 s[0:3], s[4:5], 0x0
.LBB0_1:                                ; =>This Loop Header: Depth=1
                                        ;     Child Loop BB0_3 Depth 2
\tglobal_load_dword v1, v[2:3], off
\ts_waitcnt vmcnt(0)
\tds_write_b32 v4, v1 offset:8192
\ts_waitcnt lgkmcnt(0)
\ts_barrier
\ts_branch .LBB0_3
.LBB0_2:                                ;   in Loop: Header=BB0_1 Depth=1
\ts_cbranch_scc1 .LBB0_1
; %bb.5:
\ts_endpgm
.LBB0_3:                                ;   Parent Loop BB0_1 Depth=1
                                        ; =>  This Inner Loop Header: Depth=2
\tds_read_b32 v5, v4
; %bb.4:                                ;   in Loop: Header=BB0_3 Depth=2
\ts_waitcnt lgkmcnt(0)
\tv_mfma_f32_32x32x2f32 v[0:15], v5, v6, v[0:15]
\ts_cbranch_scc0 .LBB0_3
\ts_branch .LBB0_2
.Lfunc_end0:
\t.amdhsa_kernel k
\t.end_amdhsa_kernel
; Kernel info:
; Occupancy: 8
";

    fn mfma_index(f: &Function) -> usize {
        f.body
            .iter()
            .position(|i| matches!(i, Item::Instr(x, _) if x.is_mfma()))
            .unwrap()
    }

    #[test]
    fn reads_functions_blocks_and_notes() {
        let asm = parse(GEMM);
        let f = asm.function("k").unwrap();
        assert_eq!(f.instrs().count(), 14);
        assert_eq!(f.llvm_occupancy, Some(8));
        let names: Vec<_> = f.blocks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            ["k", ".LBB0_1", ".LBB0_2", "%bb.5", ".LBB0_3", "%bb.4"]
        );
    }

    #[test]
    fn nested_loops_laid_out_apart_are_still_nested() {
        let asm = parse(GEMM);
        let f = asm.function("k").unwrap();
        let at = mfma_index(f);
        assert_eq!(f.outermost_loop(at).as_deref(), Some(".LBB0_1"));
        let body: Vec<_> = f
            .loop_instrs(".LBB0_1")
            .map(|(_, x)| x.mnemonic.as_str())
            .collect();
        for m in [
            "ds_write_b32",
            "s_barrier",
            "ds_read_b32",
            "v_mfma_f32_32x32x2f32",
        ] {
            assert!(body.contains(&m), "{m} in {body:?}");
        }
        assert!(!body.contains(&"s_endpgm"));
        let b = f.barriers();
        assert_eq!(b.len(), 1);
        assert!(f.barrier_waited(b[0]));
    }

    #[test]
    fn a_barrier_after_an_lds_write_is_not_waited() {
        let asm = parse(&GEMM.replace("\ts_waitcnt lgkmcnt(0)\n\ts_barrier", "\ts_barrier"));
        let f = asm.function("k").unwrap();
        assert!(!f.barrier_waited(f.barriers()[0]));
    }

    #[test]
    fn a_loop_whose_latch_leaves_is_no_cycle() {
        let f = |text: &str| parse(text).function("k").unwrap().clone();
        let ok = f(GEMM);
        assert!(ok.cycles(".LBB0_1") && ok.cycles(".LBB0_3"));
        // The latch ends the program instead of going back: the inner loop
        // still cycles, the K loop no longer does.
        let broken = f(&GEMM.replace("\ts_cbranch_scc1 .LBB0_1\n", "\ts_endpgm\n"));
        assert!(!broken.cycles(".LBB0_1") && broken.cycles(".LBB0_3"));
    }

    #[test]
    fn modifiers_are_the_keyed_words_after_the_operands() {
        let x = |t: &str| Instr {
            line: 1,
            mnemonic: t.split(' ').next().unwrap().into(),
            text: t.into(),
        };
        let m = x("v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7] neg:[1,0,1]");
        assert_eq!(m.modifiers(), "neg:[1,0,1]");
        let m = x(
            "v_mfma_f32_32x32x4_2b_bf16 v[0:31], v[40:41], v[34:35], v[0:31] cbsz:1 abid:1 blgp:3",
        );
        assert_eq!(m.modifiers(), "cbsz:1 abid:1 blgp:3");
        assert_eq!(
            x("v_mfma_f32_32x32x2f32 v[0:15], v5, v6, v[0:15]").modifiers(),
            ""
        );
    }

    #[test]
    fn mfma_outside_functions_is_reported() {
        let asm = parse("\tv_mfma_f32_4x4x1f32 v[0:3], v4, v5, v[0:3]\n");
        assert_eq!(asm.stray_mfma.len(), 1);
    }
}
