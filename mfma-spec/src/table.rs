//! The row format shared by every architecture's table.

/// Expands table rows into a `pub const BUILTINS: &[Builtin]`. The A and B
/// layouts follow from the shape (the one input formula of every CDNA
/// architecture, reference 2.1), C's from its accumulator family; everything
/// else is written in the row.
///
/// A dense row: `name "intrinsic" "isa": M N K blocks B, A x B type x per-lane
/// count (LLVM type) -> C/D type x per-lane count, cycles C valu V, cbsz
/// max, blgp kind, arithmetic, accumulator layout;`.
///
/// After `@sparse`, structured-sparse (SMFMAC) rows: `name "intrinsic"
/// "isa": M N K, A x B type x A per lane (LLVM) / B per lane (LLVM) -> C/D
/// type x per-lane count, cycles C, sets S, arithmetic, accumulator
/// layout;`. One block; A is compressed to K/2 columns, its index operand
/// holds S index sets; cbsz 0..=3 and abid select the set, no blgp
/// (CDNA3 reference 1.2, 2.1, 2.2, 3.4).
macro_rules! table {
    (arch $arch:literal;
     $( $name:ident $intrinsic:literal $isa:literal : $m:literal $n:literal $k:literal
        blocks $blocks:literal, $a:ident x $b:ident x $ab_n:literal ($llvm:expr) -> $cd:ident x $cd_n:literal,
        cycles $cycles:literal valu $valu:expr, cbsz $cbsz:expr, blgp $blgp:ident,
        $arith:expr, $acc:ident; )*
     $( @sparse
        $( $s_name:ident $s_intrinsic:literal $s_isa:literal : $s_m:literal $s_n:literal $s_k:literal,
           $s_a:ident x $s_b:ident x $s_a_n:literal ($s_llvm_a:expr) / $s_b_n:literal ($s_llvm_b:expr)
           -> $s_cd:ident x $s_cd_n:literal, cycles $s_cycles:literal, sets $s_sets:literal,
           $s_arith:expr, $s_acc:ident; )* )?) => {
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
                a_per_lane: $ab_n,
                b_per_lane: $ab_n,
                llvm_a: $llvm,
                llvm_b: $llvm,
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
                sparse: None,
            },
        )* $($(
            $crate::Builtin {
                name: stringify!($s_name),
                arch: $arch,
                llvm_intrinsic: $s_intrinsic,
                isa: $s_isa,
                m: $s_m, n: $s_n, k: $s_k, blocks: 1,
                a_type: $crate::ElemType::$s_a,
                b_type: $crate::ElemType::$s_b,
                a_per_lane: $s_a_n,
                b_per_lane: $s_b_n,
                llvm_a: $s_llvm_a,
                llvm_b: $s_llvm_b,
                cd: $crate::ElemType::$s_cd,
                cd_per_lane: $s_cd_n,
                llvm_cd: $crate::LlvmType::accumulator($crate::ElemType::$s_cd, $s_cd_n),
                cycles: $s_cycles, valu_coexec: None,
                cbsz_max: Some($crate::Sparse::CBSZ_MAX),
                blgp: $crate::BlgpBits::Unused,
                arith: $s_arith,
                acc: $crate::AccLayout::$s_acc,
                a: $crate::Layout::input([$arch, stringify!($s_name)], $crate::Operand::A, $s_m, $s_k / 2, 1)
                    .compressed(),
                b: $crate::Layout::input([$arch, stringify!($s_name)], $crate::Operand::B, $s_n, $s_k, 1),
                c: $crate::AccLayout::$s_acc.layout([$arch, stringify!($s_name)], $s_m, $s_n, 1),
                sparse: Some($crate::Sparse {
                    sets: $s_sets,
                    idx: $crate::Layout::index([$arch, stringify!($s_name)], $s_m, $s_k / 4, $s_sets),
                }),
            },
        )*)?];
    };
}
pub(crate) use table;
