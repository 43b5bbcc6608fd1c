//! The HIP runtime's C functions this crate calls, opened from
//! `libamdhip64` at run time: the crate's only foreign calls. Signatures as
//! in `hip_runtime_api.h` (ROCm 5 and 6); handles are opaque pointers.
//!
//! Nothing here decides anything: [`Api`] is a table of function pointers,
//! and [`Api::check`] turns a `hipError_t` into an [`Error`] with HIP's own
//! name and message.

use crate::error::{Error, Result};
use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// `hipError_t`.
pub(crate) type HipError = c_int;
/// `hipModule_t`.
pub(crate) type Module = *mut c_void;
/// `hipFunction_t`.
pub(crate) type Function = *mut c_void;
/// `hipEvent_t`.
pub(crate) type Event = *mut c_void;
/// `hipStream_t` (null: the default stream).
pub(crate) type Stream = *mut c_void;

/// `hipSuccess`.
pub(crate) const SUCCESS: HipError = 0;
/// `hipErrorNoDevice`.
pub(crate) const ERROR_NO_DEVICE: HipError = 100;
/// `hipMemcpyHostToDevice`.
pub(crate) const HOST_TO_DEVICE: c_int = 1;
/// `hipMemcpyDeviceToHost`.
pub(crate) const DEVICE_TO_HOST: c_int = 2;
/// `HIP_LAUNCH_PARAM_BUFFER_POINTER`, `_SIZE` and `_END`: the `extra`
/// argument of `hipModuleLaunchKernel` that passes the kernarg segment as
/// one buffer, laid out by the caller from the kernel's metadata.
pub(crate) const LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
pub(crate) const LAUNCH_PARAM_BUFFER_SIZE: usize = 2;
pub(crate) const LAUNCH_PARAM_END: usize = 3;
/// Bytes reserved for a `hipDeviceProp_t`: more than any ROCm version's
/// (about 1.5 KiB in ROCm 6).
pub(crate) const PROPERTIES_BYTES: usize = 16 * 1024;

/// The environment variable naming the HIP runtime library to open
/// instead of searching for it.
pub const LIBRARY_VAR: &str = "MFMA_HIP_LIBRARY";

/// The libraries tried, in order, unless [`LIBRARY_VAR`] names one: the
/// dynamic loader's search (`LD_LIBRARY_PATH`, the system's paths) by
/// name, then `$ROCM_PATH/lib` and `/opt/rocm/lib`.
pub(crate) fn candidates() -> Vec<String> {
    if let Some(path) = std::env::var_os(LIBRARY_VAR) {
        return vec![path.to_string_lossy().into_owned()];
    }
    let names: &[&str] = if cfg!(windows) {
        &["amdhip64_6.dll", "amdhip64.dll"]
    } else {
        &[
            "libamdhip64.so",
            "libamdhip64.so.7",
            "libamdhip64.so.6",
            "libamdhip64.so.5",
        ]
    };
    let mut out: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    if !cfg!(windows) {
        let mut roots = Vec::new();
        if let Some(r) = std::env::var_os("ROCM_PATH") {
            roots.push(r.to_string_lossy().into_owned());
        }
        roots.push("/opt/rocm".to_string());
        for r in roots {
            let path = format!("{}/lib/libamdhip64.so", r.trim_end_matches('/'));
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// The functions, resolved once when the library is opened.
pub(crate) struct Api {
    /// The library they come from, which must outlive them.
    _library: Library,
    /// The name or path it was opened by.
    pub(crate) path: String,
    pub(crate) init: unsafe extern "C" fn(c_uint) -> HipError,
    pub(crate) get_device_count: unsafe extern "C" fn(*mut c_int) -> HipError,
    pub(crate) set_device: unsafe extern "C" fn(c_int) -> HipError,
    pub(crate) get_device_properties: unsafe extern "C" fn(*mut c_void, c_int) -> HipError,
    pub(crate) runtime_get_version: unsafe extern "C" fn(*mut c_int) -> HipError,
    pub(crate) malloc: unsafe extern "C" fn(*mut *mut c_void, usize) -> HipError,
    pub(crate) free: unsafe extern "C" fn(*mut c_void) -> HipError,
    pub(crate) memcpy: unsafe extern "C" fn(*mut c_void, *const c_void, usize, c_int) -> HipError,
    pub(crate) module_load_data: unsafe extern "C" fn(*mut Module, *const c_void) -> HipError,
    pub(crate) module_unload: unsafe extern "C" fn(Module) -> HipError,
    pub(crate) module_get_function:
        unsafe extern "C" fn(*mut Function, Module, *const c_char) -> HipError,
    pub(crate) module_get_global:
        unsafe extern "C" fn(*mut *mut c_void, *mut usize, Module, *const c_char) -> HipError,
    #[allow(clippy::type_complexity)]
    pub(crate) module_launch_kernel: unsafe extern "C" fn(
        Function,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        Stream,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> HipError,
    pub(crate) device_synchronize: unsafe extern "C" fn() -> HipError,
    pub(crate) event_create: unsafe extern "C" fn(*mut Event) -> HipError,
    pub(crate) event_record: unsafe extern "C" fn(Event, Stream) -> HipError,
    pub(crate) event_synchronize: unsafe extern "C" fn(Event) -> HipError,
    pub(crate) event_elapsed_time: unsafe extern "C" fn(*mut f32, Event, Event) -> HipError,
    pub(crate) event_destroy: unsafe extern "C" fn(Event) -> HipError,
    pub(crate) get_error_name: unsafe extern "C" fn(HipError) -> *const c_char,
    pub(crate) get_error_string: unsafe extern "C" fn(HipError) -> *const c_char,
}

impl Api {
    /// Opens the first library of [`candidates`] that loads and resolves
    /// every function.
    pub(crate) fn open() -> Result<Api> {
        let tried = candidates();
        for path in &tried {
            // SAFETY: loading a library runs its initialisers; a HIP runtime's
            // are what any HIP program runs. Nothing else is assumed of it yet.
            let Ok(library) = (unsafe { Library::new(path) }) else {
                continue;
            };
            return Api::resolve(library, path);
        }
        Err(Error::NoRuntime { tried })
    }

    fn resolve(library: Library, path: &str) -> Result<Api> {
        macro_rules! get {
            ($($name:literal),+) => {{
                let mut found = None;
                $(
                    if found.is_none() {
                        // SAFETY: the symbol is the HIP function of that name,
                        // whose C signature is the field's type.
                        found = unsafe { library.get(concat!($name, "\0").as_bytes()) }
                            .ok()
                            .map(|s: libloading::Symbol<'_, _>| *s);
                    }
                )+
                found.ok_or(Error::MissingSymbol {
                    library: path.to_string(),
                    symbol: [$($name),+][0],
                })?
            }};
        }
        Ok(Api {
            path: path.to_string(),
            init: get!("hipInit"),
            get_device_count: get!("hipGetDeviceCount"),
            set_device: get!("hipSetDevice"),
            // ROCm 6 renamed the structure and kept the old name for the
            // old layout; either serves, the arch name is found by scanning.
            get_device_properties: get!("hipGetDevicePropertiesR0600", "hipGetDeviceProperties"),
            runtime_get_version: get!("hipRuntimeGetVersion"),
            malloc: get!("hipMalloc"),
            free: get!("hipFree"),
            memcpy: get!("hipMemcpy"),
            module_load_data: get!("hipModuleLoadData"),
            module_unload: get!("hipModuleUnload"),
            module_get_function: get!("hipModuleGetFunction"),
            module_get_global: get!("hipModuleGetGlobal"),
            module_launch_kernel: get!("hipModuleLaunchKernel"),
            device_synchronize: get!("hipDeviceSynchronize"),
            event_create: get!("hipEventCreate"),
            event_record: get!("hipEventRecord"),
            event_synchronize: get!("hipEventSynchronize"),
            event_elapsed_time: get!("hipEventElapsedTime"),
            event_destroy: get!("hipEventDestroy"),
            get_error_name: get!("hipGetErrorName"),
            get_error_string: get!("hipGetErrorString"),
            _library: library,
        })
    }

    /// `Ok` for `hipSuccess`, otherwise the error with HIP's name and message.
    pub(crate) fn check(&self, call: &'static str, code: HipError) -> Result<()> {
        if code == SUCCESS {
            return Ok(());
        }
        Err(Error::Hip {
            call,
            code,
            // SAFETY: both functions take any hipError_t and return a static
            // NUL-terminated string (or null).
            name: unsafe { string((self.get_error_name)(code)) },
            message: unsafe { string((self.get_error_string)(code)) },
        })
    }
}

/// A C string from HIP, or `?` for null.
///
/// # Safety
/// `p` is null or a NUL-terminated string that lives long enough.
unsafe fn string(p: *const c_char) -> String {
    if p.is_null() {
        return "?".to_string();
    }
    // SAFETY: as the caller guarantees.
    crate::error::one_line(&unsafe { CStr::from_ptr(p) }.to_string_lossy())
}
