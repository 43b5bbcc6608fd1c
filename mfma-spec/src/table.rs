//! The row format shared by every architecture's table.

/// Expands table rows into a `pub const BUILTINS: &[Builtin]`. The A and B
/// layouts follow from the shape (the one input formula of every CDNA
/// architecture, reference 2.1), C's from its accumulator family; everything
/// else is written in the row.
///
/// A row: `name "intrinsic" "isa": M N K blocks B, A x B type, per-lane A/B
/// count (LLVM type) -> C/D type x per-lane count, cycles C valu V, cbsz
/// max, blgp kind, arithmetic, accumulator layout;`.
macro_rules! table {
    (arch $arch:literal;
     $( $name:ident $intrinsic:literal $isa:literal : $m:literal $n:literal $k:literal
        blocks $blocks:literal, $a:ident x $b:ident x $ab_n:literal ($llvm:expr) -> $cd:ident x $cd_n:literal,
        cycles $cycles:literal valu $valu:expr, cbsz $cbsz:expr, blgp $blgp:ident,
        $arith:expr, $acc:ident; )*) => {
        /// Every builtin of this architecture, in the order of the reference table.
        pub const BUILTINS: &[$crate::Builtin] = &[$(
            $crate::Builtin {
                name: stringify!($name),
                arch: $arch,
                llvm_intrinsic: $intrinsic,
                isa: $isa,
                m: $m, n: $n, k: $k, blocks: $blocks,
                a_type: $crate::ElemType::$a,
                b_type: $crate::ElemType::$b,
                ab_per_lane: $ab_n,
                llvm_ab: $llvm,
                cd: $crate::ElemType::$cd,
                cd_per_lane: $cd_n,
                llvm_cd: $crate::LlvmType::accumulator($crate::ElemType::$cd, $cd_n),
                cycles: $cycles, valu_coexec: $valu,
                cbsz_max: $cbsz,
                blgp: $crate::BlgpBits::$blgp,
                arith: $arith,
                acc: $crate::AccLayout::$acc,
                a: $crate::Layout::input([$arch, stringify!($name)], $crate::Operand::A, $m, $k, $blocks),
                b: $crate::Layout::input([$arch, stringify!($name)], $crate::Operand::B, $n, $k, $blocks),
                c: $crate::AccLayout::$acc.layout([$arch, stringify!($name)], $m, $n, $blocks),
            },
        )*];
    };
}
pub(crate) use table;
