//! A stand-in for libamdhip64 for tests without a GPU: the functions
//! mfma-hip opens, with the same C signatures, answering from environment
//! variables and host memory. `mfma_hip::stand_in::build` compiles it with
//! rustc into `libamdhip64.so`.
//!
//! * `FAKE_HIP_INIT=fail`: hipInit returns hipErrorNoDevice.
//! * `FAKE_HIP_DEVICES=N` (default 1): the device count.
//! * `FAKE_HIP_ARCH` (default `gfx90a:sramecc+:xnack-`): gcnArchName.
//! * `FAKE_HIP_LDS` (default 8192): the value of every `*_lds_bytes` global.
//! * `FAKE_HIP_LOG=FILE`: each launch appends `kernel grid block lds kernarg-hex`.
//!
//! "Device" memory is host memory. A launched kernel whose name starts with
//! `mfma_` copies its third buffer (C) into its last (D): D = C, what a
//! call site computes for A = 0, B = 0.
#![allow(clippy::missing_safety_doc)]

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::io::Write;
use std::sync::Mutex;

static ALLOCATIONS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[no_mangle]
pub extern "C" fn hipInit(_flags: c_uint) -> c_int {
    if env("FAKE_HIP_INIT").as_deref() == Some("fail") {
        100
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> c_int {
    let n: c_int = env("FAKE_HIP_DEVICES").and_then(|s| s.parse().ok()).unwrap_or(1);
    *count = n;
    if n == 0 {
        100
    } else {
        0
    }
}

#[no_mangle]
pub extern "C" fn hipSetDevice(_device: c_int) -> c_int {
    0
}

/// Writes the name at offset 0 and gcnArchName at offset 1160, with an
/// integer field between, as a real hipDeviceProp_tR0600 has them.
#[no_mangle]
pub unsafe extern "C" fn hipGetDevicePropertiesR0600(props: *mut c_void, _device: c_int) -> c_int {
    let p = props.cast::<u8>();
    let name = b"Fake Instinct\0";
    std::ptr::copy_nonoverlapping(name.as_ptr(), p, name.len());
    let count = 104u32.to_le_bytes();
    std::ptr::copy_nonoverlapping(count.as_ptr(), p.add(388), 4);
    let arch = env("FAKE_HIP_ARCH").unwrap_or_else(|| "gfx90a:sramecc+:xnack-".into());
    std::ptr::copy_nonoverlapping(arch.as_ptr(), p.add(1160), arch.len());
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(v: *mut c_int) -> c_int {
    *v = 60_342_134;
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> c_int {
    let mem = Box::leak(vec![0xeeu8; size].into_boxed_slice());
    *ptr = mem.as_mut_ptr().cast();
    ALLOCATIONS
        .lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .insert(*ptr as usize, size);
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> c_int {
    let mut a = ALLOCATIONS.lock().unwrap();
    match a.get_or_insert_with(HashMap::new).remove(&(ptr as usize)) {
        Some(len) => {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr.cast::<u8>(), len)));
            0
        }
        None => 1,
    }
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(dst: *mut c_void, src: *const c_void, n: usize, _kind: c_int) -> c_int {
    std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.cast::<u8>(), n);
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(module: *mut *mut c_void, image: *const c_void) -> c_int {
    // A code object starts with the ELF magic.
    if std::slice::from_raw_parts(image.cast::<u8>(), 4) != b"\x7fELF" {
        return 200; // hipErrorInvalidImage
    }
    *module = 0x5000 as *mut c_void;
    0
}

#[no_mangle]
pub extern "C" fn hipModuleUnload(_module: *mut c_void) -> c_int {
    0
}

/// The function handle is the kernel's name, leaked.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(f: *mut *mut c_void, _m: *mut c_void, name: *const c_char) -> c_int {
    let name = CStr::from_ptr(name).to_owned();
    *f = name.into_raw().cast();
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetGlobal(
    dptr: *mut *mut c_void,
    bytes: *mut usize,
    _m: *mut c_void,
    name: *const c_char,
) -> c_int {
    if !CStr::from_ptr(name).to_string_lossy().ends_with("_lds_bytes") {
        return 500; // hipErrorNotFound
    }
    let v: u32 = env("FAKE_HIP_LDS").and_then(|s| s.parse().ok()).unwrap_or(8192);
    *dptr = Box::leak(Box::new(v)) as *mut u32 as *mut c_void;
    *bytes = 4;
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    f: *mut c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    lds: c_uint,
    _stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> c_int {
    if !params.is_null() || extra.is_null() {
        return 1; // hipErrorInvalidValue: this fake takes `extra` only
    }
    // extra = [BUFFER_POINTER, buf, BUFFER_SIZE, &size, END]
    if *extra as usize != 1 || *extra.add(2) as usize != 2 || *extra.add(4) as usize != 3 {
        return 1;
    }
    let size = *(*extra.add(3) as *const usize);
    let kernarg = std::slice::from_raw_parts(*extra.add(1) as *const u8, size);
    let name = CStr::from_ptr(f as *const c_char).to_string_lossy().into_owned();
    if let Some(path) = env("FAKE_HIP_LOG") {
        let hex: String = kernarg.iter().map(|b| format!("{b:02x}")).collect();
        let mut log = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
        writeln!(log, "{name} {gx},{gy},{gz} {bx},{by},{bz} {lds} {hex}").unwrap();
    }
    if name.starts_with("mfma_") {
        let ptr = |i: usize| u64::from_le_bytes(kernarg[8 * i..8 * i + 8].try_into().unwrap()) as usize;
        let (c, d) = (ptr(2), ptr(size / 8 - 1));
        let a = ALLOCATIONS.lock().unwrap();
        let sizes = a.as_ref().unwrap();
        let (Some(&cn), Some(&dn)) = (sizes.get(&c), sizes.get(&d)) else {
            return 1;
        };
        std::ptr::copy_nonoverlapping(c as *const u8, d as *mut u8, cn.min(dn));
    }
    0
}

#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> c_int {
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(e: *mut *mut c_void) -> c_int {
    *e = Box::into_raw(Box::new(0u64)).cast();
    0
}

#[no_mangle]
pub extern "C" fn hipEventRecord(_e: *mut c_void, _s: *mut c_void) -> c_int {
    0
}

#[no_mangle]
pub extern "C" fn hipEventSynchronize(_e: *mut c_void) -> c_int {
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(ms: *mut f32, _a: *mut c_void, _b: *mut c_void) -> c_int {
    *ms = 1.5;
    0
}

#[no_mangle]
pub unsafe extern "C" fn hipEventDestroy(e: *mut c_void) -> c_int {
    drop(Box::from_raw(e.cast::<u64>()));
    0
}

#[no_mangle]
pub extern "C" fn hipGetErrorName(code: c_int) -> *const c_char {
    match code {
        0 => c"hipSuccess".as_ptr(),
        1 => c"hipErrorInvalidValue".as_ptr(),
        100 => c"hipErrorNoDevice".as_ptr(),
        200 => c"hipErrorInvalidImage".as_ptr(),
        _ => c"hipErrorUnknown".as_ptr(),
    }
}

#[no_mangle]
pub extern "C" fn hipGetErrorString(code: c_int) -> *const c_char {
    match code {
        0 => c"no error".as_ptr(),
        1 => c"invalid argument".as_ptr(),
        100 => c"no ROCm-capable device is detected".as_ptr(),
        200 => c"device kernel image is invalid".as_ptr(),
        _ => c"unknown error".as_ptr(),
    }
}
