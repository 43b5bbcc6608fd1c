//! Run-time choice of the CPU features the kernels are compiled for.
//!
//! Without the `fma` target feature, `f32::mul_add` is a call into libm's
//! `fmaf` for every element (exact, but slow), and the loops are vectorised
//! for SSE2 only. Each kernel is therefore compiled twice: once with
//! AVX2+FMA enabled, chosen when the CPU has them, and once portable.

/// Which compiled copy of the software kernels runs.
///
/// Every kernel is compiled more than once: a portable copy, and copies for
/// instruction-set extensions chosen at run time when the CPU has them. All
/// copies give the same bits (the tests compare them); only speed differs.
///
/// The environment variable `MFMA_KERNELS` caps the choice for the whole
/// process (`portable` or `avx2`; read once, at first use), e.g. to run under
/// Miri or to compare speeds; [`with_kernels`] caps it for one thread.
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
}

impl Kernels {
    /// Every copy, slowest first.
    pub const ALL: [Kernels; 2] = [Kernels::Portable, Kernels::Avx2];

    /// The name `MFMA_KERNELS` accepts.
    pub const fn name(self) -> &'static str {
        match self {
            Kernels::Portable => "portable",
            Kernels::Avx2 => "avx2",
        }
    }

    /// The best copy the CPU supports, capped by `MFMA_KERNELS`.
    pub fn available() -> Kernels {
        use core::sync::atomic::{AtomicU8, Ordering};
        const UNKNOWN: u8 = u8::MAX;
        // Detection is idempotent, so a race only repeats it.
        static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);
        match STATE.load(Ordering::Relaxed) {
            UNKNOWN => {
                let k = detect().min(env_cap());
                STATE.store(k as u8, Ordering::Relaxed);
                k
            }
            s => Kernels::ALL[usize::from(s)],
        }
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
    static CAP: core::cell::Cell<Kernels> = const { core::cell::Cell::new(Kernels::Avx2) };
}

/// The best copy the CPU has.
fn detect() -> Kernels {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("f16c")
    {
        return Kernels::Avx2;
    }
    Kernels::Portable
}

/// The cap `MFMA_KERNELS` sets; unset means none.
fn env_cap() -> Kernels {
    let Some(v) = std::env::var_os("MFMA_KERNELS") else {
        return Kernels::Avx2;
    };
    match Kernels::ALL.into_iter().find(|k| v == k.name()) {
        Some(k) => k,
        None => {
            std::eprintln!(
                "mfma-core: ignoring MFMA_KERNELS={}: expected one of {:?}",
                v.to_string_lossy(),
                Kernels::ALL.map(Kernels::name)
            );
            Kernels::Avx2
        }
    }
}

/// Whether the AVX2 copies (AVX2, FMA and F16C) may run on this thread.
#[inline]
pub(crate) fn has_avx2_fma() -> bool {
    Kernels::active() >= Kernels::Avx2
}

/// Defines `fn $name<..>(..)` running `$body::<..>(..)` (an
/// `#[inline(always)]` function) from a copy compiled with AVX2+FMA when the
/// CPU has them, and from the portable copy otherwise.
///
/// The body must be `#[inline(always)]`: only code inlined into the
/// `#[target_feature]` copy is compiled with those features. With
/// `=> $body with intrinsics`, the body takes one more const generic, a
/// `bool`: true in the AVX2 copy on x86-64, where it may call
/// `core::arch::x86_64` intrinsics, false in the portable copy.
macro_rules! multiversion {
    ($(#[$attr:meta])* $vis:vis fn $name:ident<$($g:ident: $bound:path),*>($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:ident) => {
        $crate::soft::cpu::multiversion!(@emit [$(#[$attr])*] $vis $name [$($g: $bound),*] [$($arg: $ty),*] [$($ret)?] $body [] []);
    };
    ($(#[$attr:meta])* $vis:vis fn $name:ident<$($g:ident: $bound:path),*>($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:ident with intrinsics) => {
        $crate::soft::cpu::multiversion!(@emit [$(#[$attr])*] $vis $name [$($g: $bound),*] [$($arg: $ty),*] [$($ret)?] $body [{ cfg!(target_arch = "x86_64") }] [false]);
    };
    (@emit [$($attr:tt)*] $vis:vis $name:ident [$($g:ident: $bound:path),*] [$($arg:ident: $ty:ty),*] [$($ret:ty)?] $body:ident [$($fast:tt)*] [$($slow:tt)*]) => {
        $($attr)*
        $vis fn $name<$($g: $bound),*>($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma,f16c")]
                unsafe fn avx2_fma<$($g: $bound),*>($($arg: $ty),*) $(-> $ret)? {
                    $body::<$($g,)* $($fast)*>($($arg),*)
                }
                if $crate::soft::cpu::has_avx2_fma() {
                    // SAFETY: the CPU has the features `avx2_fma` is compiled for.
                    return unsafe { avx2_fma::<$($g),*>($($arg),*) };
                }
            }
            $body::<$($g,)* $($slow)*>($($arg),*)
        }
    };
}
pub(crate) use multiversion;
