//! Run-time choice of the CPU features the kernels are compiled for.
//!
//! Without the `fma` target feature, `f32::mul_add` is a call into libm's
//! `fmaf` for every element (exact, but slow), and the loops are vectorised
//! for SSE2 only. Each kernel is therefore compiled three times: with
//! AVX-512 (32 registers of 16 f32 lanes), with AVX2+FMA (16 registers of 8
//! lanes), and portable; the best copy the CPU runs is chosen at run time.

/// Which compiled copy of the software kernels runs.
///
/// Every kernel is compiled more than once: a portable copy, and copies for
/// instruction-set extensions chosen at run time when the CPU has them. All
/// copies give the same bits (the tests compare them); only speed differs.
///
/// The environment variable `MFMA_KERNELS` caps the choice for the whole
/// process (`portable`, `avx2` or `avx512`; read once, at first use), e.g.
/// to run under Miri or to compare speeds; [`with_kernels`] caps it for one
/// thread.
///
/// ```
/// use mfma_core::soft::{with_kernels, Kernels};
/// // The best copy this CPU (and `MFMA_KERNELS`) allows.
/// let best = Kernels::available();
/// assert_eq!(with_kernels(Kernels::Portable, Kernels::active), Kernels::Portable);
/// assert_eq!(Kernels::active(), best);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kernels {
    /// Plain Rust, vectorised for the target's baseline only.
    Portable,
    /// x86-64 with AVX2, FMA and F16C.
    Avx2,
    /// x86-64 with AVX-512 F, BW, DQ, VL and VNNI (and AVX2, FMA, F16C):
    /// Ice Lake and Sapphire Rapids Xeons, AMD Zen 4 and later.
    Avx512,
}

impl Kernels {
    /// Every copy, slowest first.
    pub const ALL: [Kernels; 3] = [Kernels::Portable, Kernels::Avx2, Kernels::Avx512];

    /// The best copy there is: what [`with_kernels`] caps nothing at.
    const BEST: Kernels = Kernels::Avx512;

    /// The name `MFMA_KERNELS` accepts.
    pub const fn name(self) -> &'static str {
        match self {
            Kernels::Portable => "portable",
            Kernels::Avx2 => "avx2",
            Kernels::Avx512 => "avx512",
        }
    }

    /// The best copy the CPU supports, capped by `MFMA_KERNELS`.
    ///
    /// Decided once per process, and kept by each thread as well: every
    /// chain call asks, on every thread, and a read of the process-wide
    /// state would share its cache line with whatever static the linker
    /// puts beside it. One such neighbour was written on every panel
    /// filling (the fill counter, since given blocks per thread), and 16
    /// Xeon threads ran bf16 at 409–442 GFLOP/s instead of 654–742.
    pub fn available() -> Kernels {
        use core::sync::atomic::{AtomicU8, Ordering};
        const UNKNOWN: u8 = u8::MAX;
        // Detection is idempotent, so a race only repeats it.
        static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);
        std::thread_local! {
            static HERE: core::cell::Cell<u8> = const { core::cell::Cell::new(UNKNOWN) };
        }
        let mut s = HERE.get();
        if s == UNKNOWN {
            s = STATE.load(Ordering::Relaxed);
            if s == UNKNOWN {
                s = detect().min(env_cap()) as u8;
                STATE.store(s, Ordering::Relaxed);
            }
            HERE.set(s);
        }
        Kernels::ALL[usize::from(s)]
    }

    /// The best copy this CPU has, whatever `MFMA_KERNELS` says.
    pub fn detected() -> Kernels {
        detect()
    }

    /// The copy that runs on this thread: [`available`](Kernels::available),
    /// capped by an enclosing [`with_kernels`].
    #[inline]
    pub fn active() -> Kernels {
        Kernels::available().min(CAP.get())
    }
}

/// Runs `f` with the kernels of this thread capped at `cap` (it may lower
/// the copy that runs, never raise it past what the CPU has); used to check
/// that every copy gives the same bits.
pub fn with_kernels<R>(cap: Kernels, f: impl FnOnce() -> R) -> R {
    struct Restore(Kernels);
    impl Drop for Restore {
        fn drop(&mut self) {
            CAP.set(self.0);
        }
    }
    let _restore = Restore(CAP.replace(cap));
    f()
}

std::thread_local! {
    static CAP: core::cell::Cell<Kernels> = const { core::cell::Cell::new(Kernels::BEST) };
}

/// The best copy the CPU has.
fn detect() -> Kernels {
    #[cfg(target_arch = "x86_64")]
    {
        use std::is_x86_feature_detected as has;
        let avx2 = has!("avx2") && has!("fma") && has!("f16c");
        // The features of the AVX-512 copies' `target_feature` list, each
        // checked: `vpdpbusd` (VNNI) is what the i8 kernels need beyond F.
        let avx512 = avx2
            && has!("avx512f")
            && has!("avx512bw")
            && has!("avx512dq")
            && has!("avx512vl")
            && has!("avx512vnni");
        if avx512 {
            return Kernels::Avx512;
        }
        if avx2 {
            return Kernels::Avx2;
        }
    }
    Kernels::Portable
}

/// The cap `MFMA_KERNELS` sets; unset means none.
fn env_cap() -> Kernels {
    let Some(v) = std::env::var_os("MFMA_KERNELS") else {
        return Kernels::BEST;
    };
    match Kernels::ALL.into_iter().find(|k| v == k.name()) {
        Some(k) => k,
        None => {
            std::eprintln!(
                "mfma-core: ignoring MFMA_KERNELS={}: expected one of {:?}",
                v.to_string_lossy(),
                Kernels::ALL.map(Kernels::name)
            );
            Kernels::BEST
        }
    }
}

/// The value of a kernel body's `const L: u8` in each copy (const generics
/// of enum type are not stable): `L >= AVX2` means the copy is compiled with
/// AVX2, FMA and F16C, `L >= AVX512` with the AVX-512 features as well, and
/// the body may call the intrinsics of those features.
pub(crate) const PORTABLE: u8 = 0;
/// See [`PORTABLE`].
#[cfg(target_arch = "x86_64")]
pub(crate) const AVX2: u8 = 1;
/// See [`PORTABLE`].
pub(crate) const AVX512: u8 = 2;

// Why a macro of our own and not the `multiversion` or `pulp` crates:
// `multiversion` picks a clone by CPU detection only, with no way to run a
// lower clone on a CPU that has a higher one, which `MFMA_KERNELS`,
// `with_kernels` and the every-copy tests need (and generic functions get
// its direct dispatch, a detection per call, anyway). `pulp` would let the
// f32/f16 kernels be written once over its width-generic `Simd` trait, but
// the i8 kernels need `vpmaddwd`/`vpdpbusd` and in-lane unpacks, the f16
// widening needs `vcvtph2ps`, which its generic trait does not offer (we
// would write them against its per-level intrinsics wrappers, as now), the
// bit-exact portable copy must stay plain Rust for Miri, and it would add
// some 30,000 lines of dependencies (bytemuck, num-complex, reborrow, a
// proc macro) to a crate that depends on `half` alone. This macro is 40
// lines; the per-copy code it leaves is the intrinsics, which no crate
// removes.

/// Defines `fn $name<..>(..)` running `$body::<..>(..)` (an
/// `#[inline(always)]` function) from the copy compiled for the best
/// features the thread may use ([`Kernels::active`]): AVX-512, AVX2+FMA,
/// or none. Const generics follow the type parameters after a `;`
/// (`fn f<X: Instr; const N: usize>`).
///
/// The body must be `#[inline(always)]`, and so must everything it calls
/// that should profit: only code inlined into a `#[target_feature]` copy is
/// compiled with those features. With `=> $body with intrinsics`, the body
/// takes one more const generic, `L: u8`: [`PORTABLE`], [`AVX2`] or
/// [`AVX512`], the features its copy is compiled with, under which it may
/// call `core::arch::x86_64` intrinsics (never above `PORTABLE` off x86-64).
macro_rules! multiversion {
    ($(#[$attr:meta])* $vis:vis fn $name:ident<$($g:ident: $bound:path),* $(; $(const $c:ident: $cty:ty),+)?>($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:ident) => {
        $crate::soft::cpu::multiversion!(@emit [$(#[$attr])*] $vis $name [$($g: $bound,)* $($(const $c: $cty,)+)?] [$($g,)* $($($c,)+)?] [$($arg: $ty),*] [$($ret)?] $body [] [] []);
    };
    ($(#[$attr:meta])* $vis:vis fn $name:ident<$($g:ident: $bound:path),* $(; $(const $c:ident: $cty:ty),+)?>($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:ident with intrinsics) => {
        $crate::soft::cpu::multiversion!(@emit [$(#[$attr])*] $vis $name [$($g: $bound,)* $($(const $c: $cty,)+)?] [$($g,)* $($($c,)+)?] [$($arg: $ty),*] [$($ret)?] $body
            [{ $crate::soft::cpu::AVX512 }] [{ $crate::soft::cpu::AVX2 }] [{ $crate::soft::cpu::PORTABLE }]);
    };
    (@emit [$($attr:tt)*] $vis:vis $name:ident [$($decl:tt)*] [$($call:tt)*] [$($arg:ident: $ty:ty),*] [$($ret:ty)?] $body:ident [$($l512:tt)*] [$($l2:tt)*] [$($l0:tt)*]) => {
        $($attr)*
        $vis fn $name<$($decl)*>($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma,f16c")]
                unsafe fn avx512<$($decl)*>($($arg: $ty),*) $(-> $ret)? {
                    $body::<$($call)* $($l512)*>($($arg),*)
                }
                #[target_feature(enable = "avx2,fma,f16c")]
                unsafe fn avx2_fma<$($decl)*>($($arg: $ty),*) $(-> $ret)? {
                    $body::<$($call)* $($l2)*>($($arg),*)
                }
                match $crate::soft::Kernels::active() {
                    // SAFETY: `active` never exceeds what the CPU has
                    // (`detect`), and each copy needs no more than its level.
                    $crate::soft::Kernels::Avx512 => return unsafe { avx512::<$($call)*>($($arg),*) },
                    // SAFETY: as above.
                    $crate::soft::Kernels::Avx2 => return unsafe { avx2_fma::<$($call)*>($($arg),*) },
                    $crate::soft::Kernels::Portable => {}
                }
            }
            $body::<$($call)* $($l0)*>($($arg),*)
        }
    };
}
pub(crate) use multiversion;
