//! The safe API over the HIP runtime: a GPU, device buffers, a loaded code
//! object and its launches. Every foreign call goes through [`Api`]'s
//! function table; each is one line here, with its `hipError_t` checked.

use crate::error::{Error, Result};
use crate::ffi::{self, Api};
use crate::locate::CodeObjectFiles;
use crate::plan::{operand_bytes, Catalog, Gemm, Launch, Site};
use crate::target::{arch_name_in_properties, TargetId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CString};
use std::sync::Arc;

/// The environment variable choosing the GPU by its HIP ordinal (default 0).
pub const DEVICE_VAR: &str = "MFMA_HIP_DEVICE";

/// A GPU the HIP runtime found, with a target the spec has builtins for.
/// Opening it makes it the calling thread's current HIP device; use it from
/// that thread.
pub struct Gpu {
    api: Arc<Api>,
    ordinal: c_int,
    arch_name: String,
    target: TargetId,
    runtime_version: i32,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("library", &self.api.path)
            .field("ordinal", &self.ordinal)
            .field("arch_name", &self.arch_name)
            .finish()
    }
}

impl Gpu {
    /// Opens the HIP runtime (see [`LIBRARY_VAR`](crate::LIBRARY_VAR)) and
    /// its GPU number `$MFMA_HIP_DEVICE` (default 0).
    ///
    /// Without ROCm this fails, and the message says why in one line:
    ///
    /// ```
    /// # if std::env::var_os(mfma_hip::LIBRARY_VAR).is_none() && mfma_hip::Gpu::open().is_err() {
    /// let e = mfma_hip::Gpu::open().unwrap_err();
    /// assert!(e.is_unavailable());
    /// println!("error: {e}"); // error: no HIP runtime library found (tried libamdhip64.so, ...
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::NoRuntime`], [`Error::MissingSymbol`], [`Error::NoDevice`]
    /// (no GPU, or `hipInit` failed), [`Error::UnsupportedTarget`] (a GPU
    /// of another architecture), or [`Error::Hip`].
    pub fn open() -> Result<Gpu> {
        let ordinal = match std::env::var(DEVICE_VAR) {
            Ok(s) => s.trim().parse::<usize>().map_err(|_| Error::NoDevice {
                why: format!("{DEVICE_VAR}={s} is not a device number"),
            })?,
            Err(_) => 0,
        };
        Gpu::open_ordinal(ordinal)
    }

    /// [`open`](Gpu::open) GPU number `ordinal`.
    ///
    /// # Errors
    /// As [`open`](Gpu::open).
    pub fn open_ordinal(ordinal: usize) -> Result<Gpu> {
        let api = Arc::new(Api::open()?);
        // SAFETY: hipInit takes flags 0.
        if let Err(e) = api.check("hipInit", unsafe { (api.init)(0) }) {
            return Err(Error::NoDevice {
                why: format!("the HIP runtime ({}) does not start: {e}", api.path),
            });
        }
        let mut count: c_int = 0;
        // SAFETY: `count` is a valid out-pointer.
        let code = unsafe { (api.get_device_count)(&mut count) };
        if code == ffi::ERROR_NO_DEVICE || (code == ffi::SUCCESS && count <= 0) {
            return Err(Error::NoDevice {
                why: format!("the HIP runtime ({}) finds no device", api.path),
            });
        }
        api.check("hipGetDeviceCount", code)?;
        if ordinal >= count as usize {
            return Err(Error::NoDevice {
                why: format!("device {ordinal} asked for, the HIP runtime finds {count}"),
            });
        }
        let ordinal = ordinal as c_int;
        // SAFETY: a device number below the count.
        api.check("hipSetDevice", unsafe { (api.set_device)(ordinal) })?;
        // A zeroed buffer larger than any version's hipDeviceProp_t, 8-byte
        // aligned for its size_t fields.
        let mut props = vec![0u64; ffi::PROPERTIES_BYTES / 8];
        // SAFETY: the buffer is larger than the structure the call writes.
        api.check("hipGetDeviceProperties", unsafe {
            (api.get_device_properties)(props.as_mut_ptr().cast(), ordinal)
        })?;
        let bytes: Vec<u8> = props.iter().flat_map(|w| w.to_le_bytes()).collect();
        let arch_name =
            arch_name_in_properties(&bytes).ok_or_else(|| Error::UnsupportedTarget {
                arch_name: "(no gcnArchName in the device properties)".into(),
            })?;
        let target = TargetId::supported(&arch_name)?;
        let mut version: c_int = 0;
        // SAFETY: `version` is a valid out-pointer.
        api.check("hipRuntimeGetVersion", unsafe {
            (api.runtime_get_version)(&mut version)
        })?;
        Ok(Gpu {
            api,
            ordinal,
            arch_name,
            target,
            runtime_version: version,
        })
    }

    /// The target: processor and features (`gfx90a:sramecc+:xnack-`).
    pub fn target(&self) -> &TargetId {
        &self.target
    }

    /// The GPU's `gcnArchName` as the runtime reports it.
    pub fn arch_name(&self) -> &str {
        &self.arch_name
    }

    /// The HIP runtime library opened (its name or path).
    pub fn library(&self) -> &str {
        &self.api.path
    }

    /// `hipRuntimeGetVersion` (`60_342_134` for ROCm 6.3).
    pub fn runtime_version(&self) -> i32 {
        self.runtime_version
    }

    /// The HIP device number.
    pub fn ordinal(&self) -> usize {
        self.ordinal as usize
    }

    /// A device buffer holding a copy of `data`.
    ///
    /// # Errors
    /// [`Error::Hip`] from `hipMalloc` or `hipMemcpy`.
    pub fn upload(&self, data: &[u8]) -> Result<DeviceBuffer> {
        let mut buf = self.zeroed(data.len())?;
        buf.write(data)?;
        Ok(buf)
    }

    /// A device buffer of `len` bytes, all zero.
    ///
    /// # Errors
    /// [`Error::Hip`] from `hipMalloc` or `hipMemcpy`.
    pub fn zeroed(&self, len: usize) -> Result<DeviceBuffer> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: `ptr` is a valid out-pointer; at least one byte, so that
        // every buffer has an address of its own.
        self.api.check("hipMalloc", unsafe {
            (self.api.malloc)(&mut ptr, len.max(1))
        })?;
        let mut buf = DeviceBuffer {
            api: Arc::clone(&self.api),
            ptr,
            len,
        };
        buf.write(&vec![0; len])?;
        Ok(buf)
    }

    /// Loads a code object and its manifest (see [`find`](crate::find)),
    /// refusing one built for another target than this GPU's.
    ///
    /// # Errors
    /// [`Error::CodeObject`] (unreadable, or code object and manifest
    /// disagree), [`Error::TargetMismatch`], or [`Error::Hip`] from
    /// `hipModuleLoadData`.
    pub fn load(&self, files: &CodeObjectFiles) -> Result<Module> {
        let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| Error::code_object(p, e));
        let code = read(&files.code_object)?;
        let manifest = read(&files.manifest)?;
        let manifest = String::from_utf8(manifest)
            .map_err(|_| Error::code_object(&files.manifest, "not UTF-8"))?;
        let catalog = Catalog::new(&files.code_object, &code, &manifest)?;
        check_target(&catalog, &self.target)?;
        let mut handle: ffi::Module = std::ptr::null_mut();
        // SAFETY: `code` is a complete code object, alive during the call
        // (the runtime copies it).
        self.api.check("hipModuleLoadData", unsafe {
            (self.api.module_load_data)(&mut handle, code.as_ptr().cast())
        })?;
        Ok(Module {
            api: Arc::clone(&self.api),
            handle,
            catalog,
            functions: RefCell::new(HashMap::new()),
        })
    }
}

/// Refuses a code object whose target does not run on `device`.
///
/// # Errors
/// [`Error::TargetMismatch`].
pub fn check_target(catalog: &Catalog, device: &TargetId) -> Result<()> {
    if catalog.target.runs_on(device) {
        Ok(())
    } else {
        Err(Error::TargetMismatch {
            path: catalog.path.clone(),
            code: catalog.target.to_string(),
            device: device.to_string(),
        })
    }
}

/// Memory on the GPU, freed when dropped.
pub struct DeviceBuffer {
    api: Arc<Api>,
    ptr: *mut c_void,
    len: usize,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer({:#x}, {} bytes)", self.address(), self.len)
    }
}

impl DeviceBuffer {
    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its device address, as a kernel argument.
    pub fn address(&self) -> u64 {
        self.ptr as u64
    }

    /// Copies `data` (exactly [`len`](DeviceBuffer::len) bytes) in.
    ///
    /// # Errors
    /// [`Error::Launch`] for another length, [`Error::Hip`] from `hipMemcpy`.
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::launch(
                "hipMemcpy",
                format!("{} bytes into a buffer of {}", data.len(), self.len),
            ));
        }
        // SAFETY: the buffer holds `len` bytes; `data` as many.
        self.api.check("hipMemcpy", unsafe {
            (self.api.memcpy)(
                self.ptr,
                data.as_ptr().cast(),
                self.len,
                ffi::HOST_TO_DEVICE,
            )
        })
    }

    /// Copies the contents out.
    ///
    /// # Errors
    /// [`Error::Hip`] from `hipMemcpy` (which also reports a kernel that
    /// failed before it).
    pub fn read(&self) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.len];
        // SAFETY: both sides hold `len` bytes.
        self.api.check("hipMemcpy", unsafe {
            (self.api.memcpy)(
                out.as_mut_ptr().cast(),
                self.ptr,
                self.len,
                ffi::DEVICE_TO_HOST,
            )
        })?;
        Ok(out)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated by hipMalloc, freed once. An error here (a
        // runtime already torn down) has nobody to go to.
        unsafe { (self.api.free)(self.ptr) };
    }
}

/// A code object loaded on the GPU, with its [`Catalog`] of kernels;
/// unloaded when dropped.
pub struct Module {
    api: Arc<Api>,
    handle: ffi::Module,
    catalog: Catalog,
    functions: RefCell<HashMap<String, ffi::Function>>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("path", &self.catalog.path)
            .field("target", &self.catalog.target.to_string())
            .finish()
    }
}

/// The result of [`Module::run_gemm`].
#[derive(Clone, Debug, PartialEq)]
pub struct GemmRun {
    /// C, row-major, `m × n` elements of the builtin's output type.
    pub c: Vec<u8>,
    /// The GPU time of each launch, in seconds (`hipEventElapsedTime`).
    pub seconds: Vec<f64>,
}

impl GemmRun {
    /// The shortest launch.
    pub fn best(&self) -> f64 {
        self.seconds.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

impl Module {
    /// The kernels it holds.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn function(&self, kernel: &str) -> Result<ffi::Function> {
        if let Some(&f) = self.functions.borrow().get(kernel) {
            return Ok(f);
        }
        let name = CString::new(kernel).map_err(|_| Error::launch(kernel, "a NUL in the name"))?;
        let mut f: ffi::Function = std::ptr::null_mut();
        // SAFETY: a loaded module and a NUL-terminated name.
        self.api.check("hipModuleGetFunction", unsafe {
            (self.api.module_get_function)(&mut f, self.handle, name.as_ptr())
        })?;
        self.functions.borrow_mut().insert(kernel.to_string(), f);
        Ok(f)
    }

    /// Launches `launch` on the default stream and waits for it; returns
    /// its GPU time in seconds.
    ///
    /// # Safety
    /// The kernel reads and writes memory at the addresses packed into
    /// `launch.kernarg`: they must be device buffers of the sizes the kernel
    /// expects, alive until this returns. ([`run_site`](Module::run_site)
    /// and [`run_gemm`](Module::run_gemm) are the safe launches.)
    ///
    /// # Errors
    /// [`Error::Hip`] from any of the calls, a failing kernel included.
    pub unsafe fn launch(&self, launch: &Launch) -> Result<f64> {
        let f = self.function(&launch.kernel)?;
        let events = Events::new(&self.api)?;
        let mut size = launch.kernarg.len();
        let mut kernarg = launch.kernarg.clone();
        let mut extra: [*mut c_void; 5] = [
            ffi::LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
            kernarg.as_mut_ptr().cast(),
            ffi::LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
            (&mut size as *mut usize).cast(),
            ffi::LAUNCH_PARAM_END as *mut c_void,
        ];
        let api = &self.api;
        let null = std::ptr::null_mut();
        // SAFETY: the events are live; the null stream is the default one.
        api.check("hipEventRecord", unsafe {
            (api.event_record)(events.0, null)
        })?;
        let [gx, gy, gz] = launch.grid;
        let [bx, by, bz] = launch.block;
        // SAFETY: `extra` passes the kernarg buffer and its size, both alive
        // during the call; what the kernel does with the addresses in it is
        // the caller's contract.
        api.check("hipModuleLaunchKernel", unsafe {
            (api.module_launch_kernel)(
                f,
                gx,
                gy,
                gz,
                bx,
                by,
                bz,
                launch.lds_bytes,
                null,
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        })?;
        // SAFETY: as above.
        api.check("hipEventRecord", unsafe {
            (api.event_record)(events.1, null)
        })?;
        api.check("hipEventSynchronize", unsafe {
            (api.event_synchronize)(events.1)
        })?;
        api.check("hipDeviceSynchronize", unsafe {
            (api.device_synchronize)()
        })?;
        let mut ms = 0f32;
        api.check("hipEventElapsedTime", unsafe {
            (api.event_elapsed_time)(&mut ms, events.0, events.1)
        })?;
        Ok(f64::from(ms) / 1e3)
    }

    /// Runs call site `site` once on `inputs` (A, B, C and, for SMFMAC, the
    /// index, as [`operand_bytes`] sizes them) and returns D.
    ///
    /// # Errors
    /// [`Error::Launch`] for inputs of the wrong number or size,
    /// [`Error::Hip`] from the runtime.
    pub fn run_site(&self, gpu: &Gpu, site: &Site, inputs: &[&[u8]]) -> Result<Vec<u8>> {
        let ops = site.operands();
        let (ins, d) = ops.split_at(ops.len() - 1);
        if inputs.len() != ins.len() {
            return Err(Error::launch(
                &site.kernel,
                format!("it takes {} inputs, given {}", ins.len(), inputs.len()),
            ));
        }
        let mut buffers = Vec::new();
        for (&op, data) in ins.iter().zip(inputs) {
            let want = operand_bytes(site.builtin, op);
            if data.len() != want {
                return Err(Error::launch(
                    &site.kernel,
                    format!(
                        "operand {} of {} has {want} bytes, given {}",
                        op.name(),
                        site.builtin.path(),
                        data.len()
                    ),
                ));
            }
            buffers.push(gpu.upload(data)?);
        }
        buffers.push(gpu.zeroed(operand_bytes(site.builtin, d[0]))?);
        let pointers: Vec<u64> = buffers.iter().map(DeviceBuffer::address).collect();
        let launch = self.catalog.site_launch(site, &pointers)?;
        // SAFETY: every pointer is a live buffer of its operand's size, which
        // is what the call-site kernel reads and writes.
        unsafe { self.launch(&launch)? };
        buffers.pop().expect("D").read()
    }

    /// Runs GEMM kernel `gemm` `reps` times (at least once) on row-major
    /// `a` (`m × k`) and `b` (`k × n`) of the builtin's input type, and
    /// returns C and each launch's GPU time. Before the first launch, the
    /// kernel's `gemm_<builtin>_lds_bytes` is read back from the GPU and
    /// must be the LDS the launch passes.
    ///
    /// # Errors
    /// [`Error::Launch`] for inputs of the wrong size or an LDS figure
    /// that disagrees, [`Error::Hip`] from the runtime.
    pub fn run_gemm(
        &self,
        gpu: &Gpu,
        gemm: &Gemm,
        [a, b]: [&[u8]; 2],
        [m, n, k]: [usize; 3],
        reps: usize,
    ) -> Result<GemmRun> {
        let bytes = |t: mfma_spec::ElemType| t.bits() as usize / 8;
        let x = gemm.builtin;
        for (name, data, want) in [
            ("A", a, m * k * bytes(x.a_type)),
            ("B", b, k * n * bytes(x.b_type)),
        ] {
            if data.len() != want {
                return Err(Error::launch(
                    &gemm.kernel,
                    format!(
                        "{name} of a {m}x{n}x{k} problem has {want} bytes, given {}",
                        data.len()
                    ),
                ));
            }
        }
        let lds = self.global_u32(&format!("{}_lds_bytes", gemm.kernel))?;
        if lds != gemm.lds_bytes {
            return Err(Error::launch(
                &gemm.kernel,
                format!(
                    "the GPU's copy of its LDS size says {lds}, the manifest {}",
                    gemm.lds_bytes
                ),
            ));
        }
        let (da, db) = (gpu.upload(a)?, gpu.upload(b)?);
        let dc = gpu.zeroed(m * n * bytes(x.cd))?;
        let launch = self.catalog.gemm_launch(
            gemm,
            [da.address(), db.address(), dc.address()],
            [m, n, k],
        )?;
        let mut seconds = Vec::new();
        for _ in 0..reps.max(1) {
            // SAFETY: the buffers hold m×k, k×n and m×n elements, which is
            // what the kernel reads and writes for these m, n, k.
            seconds.push(unsafe { self.launch(&launch)? });
        }
        Ok(GemmRun {
            c: dc.read()?,
            seconds,
        })
    }

    /// The value of a 4-byte global of the loaded code object, read back
    /// from the GPU (`hipModuleGetGlobal`).
    ///
    /// # Errors
    /// [`Error::Hip`], or [`Error::Launch`] for a global of another size.
    pub fn global_u32(&self, name: &str) -> Result<u32> {
        let c_name = CString::new(name).map_err(|_| Error::launch(name, "a NUL in the name"))?;
        let (mut ptr, mut size): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
        // SAFETY: valid out-pointers, a loaded module, a NUL-terminated name.
        self.api.check("hipModuleGetGlobal", unsafe {
            (self.api.module_get_global)(&mut ptr, &mut size, self.handle, c_name.as_ptr())
        })?;
        if size != 4 {
            return Err(Error::launch(
                name,
                format!("a global of {size} bytes, not 4"),
            ));
        }
        let mut out = [0u8; 4];
        // SAFETY: the global holds 4 bytes, as does `out`.
        self.api.check("hipMemcpy", unsafe {
            (self.api.memcpy)(out.as_mut_ptr().cast(), ptr, 4, ffi::DEVICE_TO_HOST)
        })?;
        Ok(u32::from_le_bytes(out))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by hipModuleLoadData, unloaded once.
        unsafe { (self.api.module_unload)(self.handle) };
    }
}

/// Two events around a launch, destroyed when dropped.
struct Events<'a>(ffi::Event, ffi::Event, &'a Api);

impl<'a> Events<'a> {
    fn new(api: &'a Api) -> Result<Events<'a>> {
        let (mut a, mut b): (ffi::Event, ffi::Event) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: valid out-pointers.
        api.check("hipEventCreate", unsafe { (api.event_create)(&mut a) })?;
        if let Err(e) = api.check("hipEventCreate", unsafe { (api.event_create)(&mut b) }) {
            // SAFETY: created just above.
            unsafe { (api.event_destroy)(a) };
            return Err(e);
        }
        Ok(Events(a, b, api))
    }
}

impl Drop for Events<'_> {
    fn drop(&mut self) {
        // SAFETY: both were created by hipEventCreate.
        unsafe {
            (self.2.event_destroy)(self.0);
            (self.2.event_destroy)(self.1);
        }
    }
}
