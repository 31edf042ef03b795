//! Safe access to the Verilator models that build.rs compiles, one per RTL top.

use std::ffi::{c_char, c_void, CString};
use std::ptr::NonNull;

/// One port of a top-level module.
#[derive(Debug, Clone, Copy)]
pub struct PortInfo {
    pub name: &'static str,
    pub input: bool,
    pub width: usize,
}

pub(crate) struct TopInfo {
    name: &'static str,
    ports: &'static [PortInfo],
    new: unsafe extern "C" fn() -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    eval: unsafe extern "C" fn(*mut c_void),
    trace: unsafe extern "C" fn(*mut c_void, *const c_char) -> i32,
    set: unsafe extern "C" fn(*mut c_void, i32, *const u32),
    get: unsafe extern "C" fn(*mut c_void, i32, *mut u32),
}

include!(concat!(env!("OUT_DIR"), "/models.rs"));


#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    UnknownTop(String),
    UnknownPort { top: &'static str, port: String },
    Trace(String),
    /// The model did not answer every frame it was given (a hardware bug, or an empty frame).
    MissingRecords { frames: usize, records: usize },
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::UnknownTop(t) => write!(f, "no Verilator model named {t}"),
            SimError::UnknownPort { top, port } => write!(f, "{top} has no port {port}"),
            SimError::Trace(p) => write!(f, "cannot open waveform file {p}"),
            SimError::MissingRecords { frames, records } => {
                write!(f, "{frames} frames went in but {records} verdicts came out")
            }
        }
    }
}

impl std::error::Error for SimError {}

/// Widest port, in 32-bit words.
const MAX_WORDS: usize = 16;

/// A port handle: index into the top's port list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port(usize);

/// One instance of a Verilator model, clocked through `clock`.
pub struct Model {
    top: &'static TopInfo,
    handle: NonNull<c_void>,
    clock: Port,
    /// Rising clock edges since creation.
    pub cycles: u64,
    /// Evaluated with the clock low and no input set since: the next `tick` goes straight to
    /// the edge (one evaluation of the three a cycle took saved).
    settled: bool,
}

impl Model {
    pub fn new(name: &str) -> Result<Model, SimError> {
        let top = ALL_TOPS.iter().copied().find(|t| t.name == name).ok_or_else(|| SimError::UnknownTop(name.into()))?;
        // SAFETY: `new` is the shim's constructor for this top; it returns a fresh heap object
        // that only this Model owns and frees in Drop.
        let raw = unsafe { (top.new)() };
        let handle = NonNull::new(raw).expect("Verilator model allocation");
        assert!(top.ports.iter().all(|p| p.width <= 32 * MAX_WORDS), "{name} has a port wider than 512 bits");
        let mut m = Model { top, handle, clock: Port(0), cycles: 0, settled: false };
        m.clock = m.port("clock")?;
        Ok(m)
    }

    pub fn ports(&self) -> &'static [PortInfo] {
        self.top.ports
    }

    pub fn port(&self, name: &str) -> Result<Port, SimError> {
        self.top
            .ports
            .iter()
            .position(|p| p.name == name)
            .map(Port)
            .ok_or_else(|| SimError::UnknownPort { top: self.top.name, port: name.into() })
    }

    fn words(&self, p: Port) -> usize {
        self.top.ports[p.0].width.div_ceil(32).max(1)
    }

    /// Drive an input port from little-endian 32-bit words (missing words are zero).
    pub fn set_words(&mut self, p: Port, value: &[u32]) {
        assert!(self.top.ports[p.0].input, "{} is an output", self.top.ports[p.0].name);
        let mut w = [0u32; MAX_WORDS];
        for (d, s) in w[..self.words(p)].iter_mut().zip(value) {
            *d = *s;
        }
        self.settled = false;
        // SAFETY: the handle is live; `w` holds as many words as the port is wide, which is
        // what the generated setter reads for this port index.
        unsafe { (self.top.set)(self.handle.as_ptr(), p.0 as i32, w.as_ptr()) }
    }

    pub fn set(&mut self, p: Port, value: u64) {
        self.set_words(p, &[value as u32, (value >> 32) as u32]);
    }

    /// Drive a port from little-endian bytes (byte 0 = bits 7:0).
    pub fn set_bytes(&mut self, p: Port, bytes: &[u8]) {
        let mut words = [0u32; MAX_WORDS];
        for (w, c) in words.iter_mut().zip(bytes.chunks(4)) {
            *w = c.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (b as u32) << (8 * i));
        }
        self.set_words(p, &words);
    }

    pub fn get_words(&self, p: Port) -> Vec<u32> {
        let mut w = [0u32; MAX_WORDS];
        self.read_into(p, &mut w);
        w[..self.words(p)].to_vec()
    }

    fn read_into(&self, p: Port, w: &mut [u32; MAX_WORDS]) {
        // SAFETY: the handle is live and `w` has room for every word of any port (checked in
        // `new`), which is what the generated getter writes for this port index.
        unsafe { (self.top.get)(self.handle.as_ptr(), p.0 as i32, w.as_mut_ptr()) };
    }

    /// The low 64 bits of a port.
    pub fn get(&self, p: Port) -> u64 {
        let mut w = [0u32; MAX_WORDS];
        self.read_into(p, &mut w);
        w[0] as u64 | (w[1] as u64) << 32
    }

    pub fn get_bytes(&self, p: Port) -> Vec<u8> {
        let width = self.top.ports[p.0].width.div_ceil(8);
        self.get_words(p).iter().flat_map(|w| w.to_le_bytes()).take(width).collect()
    }

    /// One clock cycle: evaluate with the clock low (inputs settle away from the edge, since
    /// rust-hdl routes the clock through logic), then raise it.
    pub fn tick(&mut self) {
        if !self.settled {
            self.settle();
        }
        self.set(self.clock, 1);
        self.eval();
        self.cycles += 1;
    }

    /// Evaluate with the clock low so that outputs which depend combinationally on inputs
    /// just set (a `ready` that follows a `valid`) can be read before the edge.
    pub fn settle(&mut self) {
        self.set(self.clock, 0);
        self.eval();
        self.settled = true;
    }

    fn eval(&mut self) {
        // SAFETY: the handle is live and owned by this Model.
        unsafe { (self.top.eval)(self.handle.as_ptr()) }
    }

    /// Write a VCD waveform of everything from now on to `path`.
    pub fn trace(&mut self, path: &str) -> Result<(), SimError> {
        let c = CString::new(path).map_err(|_| SimError::Trace(path.into()))?;
        // SAFETY: the handle is live; the shim copies the path before returning.
        let rc = unsafe { (self.top.trace)(self.handle.as_ptr(), c.as_ptr()) };
        if rc == 0 {
            Ok(())
        } else {
            Err(SimError::Trace(path.into()))
        }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: the handle came from `new` of the same top and is freed exactly once.
        unsafe { (self.top.free)(self.handle.as_ptr()) }
    }
}
