//! Run-time choice of the CPU features the kernels are compiled for.
//!
//! Without the `fma` target feature, `f32::mul_add` is a call into libm's
//! `fmaf` for every element (exact, but slow), and the loops are vectorised
//! for SSE2 only. Each kernel is therefore compiled twice: once with
//! AVX2+FMA enabled, chosen when the CPU has them, and once portable.

/// Whether the running CPU has AVX2 and FMA; detected on first use.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[inline]
pub(crate) fn has_avx2_fma() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    #[cfg(test)]
    if FORCE_PORTABLE.get() {
        return false;
    }
    const UNKNOWN: u8 = 0;
    const NO: u8 = 1;
    const YES: u8 = 2;
    // Detection is idempotent, so a race only repeats it.
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);
    match STATE.load(Ordering::Relaxed) {
        UNKNOWN => {
            let yes = std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
            STATE.store(if yes { YES } else { NO }, Ordering::Relaxed);
            yes
        }
        s => s == YES,
    }
}

/// Whether the running CPU has AVX2, FMA and F16C; detected on first use.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2_fma_f16c() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    static STATE: AtomicU8 = AtomicU8::new(0);
    if !has_avx2_fma() {
        return false;
    }
    match STATE.load(Ordering::Relaxed) {
        0 => {
            let yes = std::is_x86_feature_detected!("f16c");
            STATE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
        s => s == 2,
    }
}

#[cfg(test)]
std::thread_local! {
    /// Lets a unit test run the portable copies on a CPU that has AVX2+FMA.
    pub(crate) static FORCE_PORTABLE: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
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
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            {
                #[target_feature(enable = "avx2,fma")]
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
