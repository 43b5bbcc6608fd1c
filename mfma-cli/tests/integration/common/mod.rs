//! Running the `mfma` binary, and the reference formulas the tests check it
//! against, stated independently of mfma-spec (reference sections 2 and 3).
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `mfma` with `args`.
pub fn mfma(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mfma"))
        .args(args)
        .output()
        .expect("the mfma binary runs")
}

/// Runs `mfma`, expects success and no stderr, returns stdout.
pub fn ok(args: &[&str]) -> String {
    let out = mfma(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mfma {args:?} failed: {stderr}");
    assert!(stderr.is_empty(), "mfma {args:?} wrote to stderr: {stderr}");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Runs `mfma`, expects exit status 2 and nothing on stdout, returns stderr.
pub fn fails(args: &[&str]) -> String {
    let out = mfma(args);
    assert_eq!(out.status.code(), Some(2), "mfma {args:?} should exit 2");
    assert!(out.stdout.is_empty(), "mfma {args:?} printed to stdout");
    String::from_utf8(out.stderr).expect("utf-8 stderr")
}

/// Runs `mfma` with a command line given as one string (arguments split at spaces).
pub fn ok_line(line: &str) -> String {
    ok(&line.split_whitespace().collect::<Vec<_>>())
}

/// [`json`] with a command line given as one string.
pub fn json_line(line: &str) -> Value {
    json(&line.split_whitespace().collect::<Vec<_>>())
}

/// A JSON list of strings.
pub fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|x| x.as_str().expect("a string"))
        .collect()
}

/// The shape of one builtin, by the name users write (`cdna3::` in front
/// for CDNA3).
pub fn shape(name: &str) -> Shape {
    all_shapes()
        .into_iter()
        .find(|s| s.id() == name)
        .unwrap_or_else(|| panic!("{name} is listed"))
}

/// Runs `mfma`, expects one JSON document on stdout.
pub fn json(args: &[&str]) -> Value {
    let text = ok(args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("mfma {args:?}: bad JSON: {e}"))
}

/// A scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("mfma-cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The architectures, default first (a bare name means it).
pub const ARCHS: [&str; 2] = ["cdna2", "cdna3"];

/// What a test needs to know of a builtin, read from `mfma list --format json`.
#[derive(Clone, Debug)]
pub struct Shape {
    pub arch: String,
    pub name: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub blocks: usize,
    /// A's element type.
    pub a: String,
    /// B's element type (differs from A's only for CDNA3's mixed fp8/bf8).
    pub b: String,
    /// A's elements per lane (SMFMAC: compressed values, half of B's).
    pub a_per_lane: usize,
    pub b_per_lane: usize,
    pub cd: String,
    pub cd_per_lane: usize,
    /// The `sparse` object of the JSON row (`null` for dense MFMA).
    pub sparse_json: Value,
}

/// The builtins of CDNA2, the default architecture.
pub fn shapes() -> Vec<Shape> {
    shapes_of("cdna2")
}

/// The builtins of every architecture.
pub fn all_shapes() -> Vec<Shape> {
    ARCHS.iter().flat_map(|a| shapes_of(a)).collect()
}

/// The builtins `mfma list --arch ARCH` lists.
pub fn shapes_of(arch: &str) -> Vec<Shape> {
    let list = json(&["list", "--arch", arch, "--format", "json"]);
    let num = |v: &Value, f: &str| v[f].as_u64().unwrap_or_else(|| panic!("{f}")) as usize;
    let text = |v: &Value, f: &str| v[f].as_str().unwrap_or_else(|| panic!("{f}")).to_string();
    list.as_array()
        .expect("a list")
        .iter()
        .map(|v| Shape {
            arch: text(v, "arch"),
            name: text(v, "name"),
            m: num(v, "m"),
            n: num(v, "n"),
            k: num(v, "k"),
            blocks: num(v, "blocks"),
            a: text(v, "a_type"),
            b: text(v, "b_type"),
            a_per_lane: num(v, "a_per_lane"),
            b_per_lane: num(v, "b_per_lane"),
            cd: text(v, "cd_type"),
            cd_per_lane: num(v, "cd_per_lane"),
            sparse_json: v["sparse"].clone(),
        })
        .collect()
}

/// (block, row, col) of one element.
pub type Elem = [usize; 3];

impl Shape {
    /// The name as users write it: bare for CDNA2, `cdna3::NAME` for CDNA3.
    pub fn id(&self) -> String {
        if self.arch == ARCHS[0] {
            self.name.clone()
        } else {
            format!("{}::{}", self.arch, self.name)
        }
    }

    /// Whether this is CDNA3's (whose modifier rules differ, reference 3).
    pub fn cdna3(&self) -> bool {
        self.arch == "cdna3"
    }

    /// Whether this is a structured-sparse SMFMAC (CDNA3 reference 1.2):
    /// read off the name, not the CLI's `sparse` field.
    pub fn sparse(&self) -> bool {
        self.name.starts_with("smfmac_")
    }

    /// CDNA3 2.2, 3.4: index sets in the index register, 4 for 16-bit
    /// inputs and 2 for 8-bit ones; 0 for dense MFMA.
    pub fn sets(&self) -> usize {
        match (self.sparse(), self.a.as_str()) {
            (false, _) => 0,
            (true, "f16" | "bf16") => 4,
            (true, _) => 2,
        }
    }

    /// The operands: a, b, c, d, and `x` for SMFMAC's index (`idx`).
    pub fn operands(&self) -> Vec<char> {
        let mut ops = vec!['a', 'b', 'c', 'd'];
        if self.sparse() {
            ops.push('x');
        }
        ops
    }

    /// (blocks, rows, cols) of an operand's register layout: an SMFMAC's A
    /// is its compressed M x K/2 (reference 2.1), its index (`x`) has one
    /// (set, i, g) per index set, row and group of 4 k (2.2).
    pub fn extent(&self, op: char) -> (usize, usize, usize) {
        match op {
            'a' if self.sparse() => (1, self.m, self.k / 2),
            'a' => (self.blocks, self.m, self.k),
            'b' => (self.blocks, self.k, self.n),
            'x' => (self.sets(), self.m, self.k / 4),
            _ => (self.blocks, self.m, self.n),
        }
    }

    pub fn per_lane(&self, op: char) -> usize {
        match op {
            'a' => self.a_per_lane,
            'b' => self.b_per_lane,
            'x' => 8,
            _ => self.cd_per_lane,
        }
    }

    /// Every element of an operand, row-major, blocks in order.
    pub fn elements(&self, op: char) -> Vec<Elem> {
        let (bl, r, c) = self.extent(op);
        (0..bl)
            .flat_map(|b| (0..r).flat_map(move |i| (0..c).map(move |j| [b, i, j])))
            .collect()
    }

    /// Reference 2.1 (A, B) and 2.2 (C, D): the (lane, item) of an element,
    /// all modifiers zero.
    pub fn slot(&self, op: char, e: Elem) -> (usize, usize) {
        let [b, x, y] = e;
        match op {
            // A[b][i][k] and B[b][k][j]: r is i for A, j for B. An SMFMAC A
            // is laid out as a dense one of K/2 (CDNA3 2.1), k being kc.
            'a' | 'b' => {
                let (r_extent, r, k) = if op == 'a' {
                    (self.m, x, y)
                } else {
                    (self.n, y, x)
                };
                let kk = if op == 'a' && self.sparse() {
                    self.k / 2
                } else {
                    self.k
                };
                let g = 64 / (r_extent * self.blocks);
                let e = kk / g;
                (r + r_extent * b + r_extent * self.blocks * (k / e), k % e)
            }
            // CDNA3 2.2: the field of group g of row i lies in the lane of
            // A[i][4g] (compressed column 2g), at the group's number f within
            // the lane, after the fields of the sets before its own.
            'x' => {
                let (set, i, g) = (b, x, y);
                let (lane, item) = self.slot('a', [0, i, 2 * g]);
                let fields = self.a_per_lane / 2;
                (lane, item / 2 + fields * set)
            }
            _ => {
                let (i, j) = (x, y);
                match (self.m, self.cd.as_str()) {
                    (32, _) => (j + 32 * ((i / 4) % 2), 16 * b + 4 * (i / 8) + i % 4),
                    (16, "f64") => (j + 16 * (i % 4), i / 4),
                    (16, _) => (j + 16 * (i / 4), 4 * b + i % 4),
                    (4, "f64") => (j + 4 * b + 16 * i, 0),
                    (4, _) => (j + 4 * b, i),
                    _ => panic!("no accumulator family for {}", self.name),
                }
            }
        }
    }

    /// The inverse of [`Shape::slot`], built by walking every element and
    /// checking that every slot is hit exactly once.
    pub fn slots(&self, op: char) -> Vec<Vec<Elem>> {
        let per = self.per_lane(op);
        let mut out: Vec<Vec<Option<Elem>>> = vec![vec![None; per]; 64];
        for e in self.elements(op) {
            let (lane, item) = self.slot(op, e);
            assert!(lane < 64 && item < per, "{} {op} {e:?}", self.name);
            assert!(
                out[lane][item].replace(e).is_none(),
                "{} {op}: two elements in one slot",
                self.name
            );
        }
        out.into_iter()
            .map(|l| {
                l.into_iter()
                    .map(|e| e.expect("every slot holds an element"))
                    .collect()
            })
            .collect()
    }
}

/// Reference 3.1: the block whose A feeds block `b`.
pub fn a_source(cbsz: usize, abid: usize, b: usize) -> usize {
    (1 << cbsz) * (b / (1 << cbsz)) + abid
}

/// Reference 3.2: the lane whose B value lane `l` reads under blgp `g`.
pub fn b_source(g: usize, l: usize) -> usize {
    match g {
        0 => l,
        1 => l % 32,
        2 => 32 + l % 32,
        3 => (l + 16) % 64,
        4 => l % 16,
        5 => 16 + l % 16,
        6 => 32 + l % 16,
        7 => 48 + l % 16,
        _ => panic!("blgp {g}"),
    }
}

/// CDNA3 3.4: the index set an SMFMAC reads, `abid` when cbsz is 0, else 0.
pub fn index_set(cbsz: usize, abid: usize) -> usize {
    if cbsz == 0 {
        abid
    } else {
        0
    }
}

/// CDNA3 2.1: the logical k an SMFMAC's compressed column `kc` may hold:
/// the 4 of its group g = kc / 2.
pub fn candidates(kc: usize) -> Vec<usize> {
    let g = kc / 2;
    (4 * g..4 * g + 4).collect()
}

/// The name of an operand letter (`x` is the index operand, `idx`).
pub fn op_name(op: char) -> String {
    if op == 'x' {
        "idx".into()
    } else {
        op.to_string()
    }
}

/// `lanes[lane][item]` of `layout --format json` as element lists.
pub fn lanes(doc: &Value) -> Vec<Vec<Vec<Elem>>> {
    serde_json::from_value(doc["lanes"].clone()).expect("lanes[lane][item] = [[b, r, c], ...]")
}

/// Reference 3.1 (both architectures): legal (cbsz, abid) pairs of a builtin
/// (FP64 and 1-block ones have only (0, 0)); CDNA3 3.4: on SMFMAC cbsz
/// 0..=3 and abid below the number of index sets, whatever cbsz is.
pub fn broadcast_pairs(s: &Shape) -> Vec<(usize, usize)> {
    if s.sparse() {
        return (0..=3)
            .flat_map(|c| (0..s.sets()).map(move |a| (c, a)))
            .collect();
    }
    if s.a == "f64" || s.blocks == 1 {
        return vec![(0, 0)];
    }
    let max = s.blocks.trailing_zeros() as usize;
    (0..=max)
        .flat_map(|c| (0..1 << c).map(move |a| (c, a)))
        .collect()
}

/// Largest legal blgp. CDNA2 3.2: 7 on every non-f64 builtin. CDNA3 3.1,
/// 3.2: 7 on the multi-block non-f64 ones and the two single-block f32
/// ones; every other single-block builtin takes no modifier, and f64's bits
/// are negation flags.
pub fn blgp_max(s: &Shape) -> usize {
    let pattern = if s.cdna3() {
        (s.blocks > 1 && s.a != "f64") || s.a == "f32"
    } else {
        s.a != "f64"
    };
    if pattern {
        7
    } else {
        0
    }
}

/// Largest legal negation mask: CDNA3 3.3, any of a, b, c on f64; none elsewhere.
pub fn neg_max(s: &Shape) -> usize {
    if s.cdna3() && s.a == "f64" {
        7
    } else {
        0
    }
}

/// Whether two hex bit patterns agree: bit for bit, or both NaN (reference 4.2: NaN by class).
pub fn same_bits(want: &str, got: &str) -> bool {
    let nan = |h: &str| {
        let x = u64::from_str_radix(h, 16).expect("hex");
        match h.len() {
            8 => (x >> 23) & 0xff == 0xff && x & 0x7f_ffff != 0,
            16 => (x >> 52) & 0x7ff == 0x7ff && x & ((1 << 52) - 1) != 0,
            _ => false,
        }
    };
    want == got || (nan(want) && nan(got))
}

/// Compares `text` with the snapshot file `tests/snapshots/<name>`;
/// `MFMA_BLESS=1` rewrites the file instead.
pub fn snapshot(name: &str, text: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("MFMA_BLESS").is_some() {
        std::fs::write(&path, text).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (MFMA_BLESS=1 writes it)", path.display()));
    if want != text {
        let line = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(text.lines().count()));
        panic!(
            "output differs from {} at line {}:\n want: {:?}\n  got: {:?}\n(MFMA_BLESS=1 rewrites it)",
            path.display(),
            line + 1,
            want.lines().nth(line),
            text.lines().nth(line)
        );
    }
}
