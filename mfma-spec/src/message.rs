//! Messages built without allocation, in `const` too: the compile-time
//! backstop for modifiers given as named constants reports exactly the text
//! the macro reports for literals, and a `const` layout lookup out of range
//! says which operand and which ranges. (`core::fmt` cannot run in `const`.)

use crate::Builtin;
use core::fmt;

/// Longest message (bytes); longer text is cut at a character boundary.
const CAPACITY: usize = 480;

/// A message under construction, usable in `const fn`.
///
/// ```
/// use mfma_spec::Message;
/// const M: Message = Message::new().str("cbsz = ").int(-3).str(" is negative");
/// assert_eq!(M.as_str(), "cbsz = -3 is negative");
/// ```
#[derive(Clone, Copy)]
pub struct Message {
    buf: [u8; CAPACITY],
    len: usize,
}

impl Default for Message {
    fn default() -> Self {
        Message::new()
    }
}

impl Message {
    /// An empty message.
    pub const fn new() -> Self {
        Message {
            buf: [0; CAPACITY],
            len: 0,
        }
    }

    /// Appends `s` (as much of it as fits, cut at a character boundary).
    pub const fn str(mut self, s: &str) -> Self {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < CAPACITY {
            // Never start a character that cannot be finished.
            let width = char_width(bytes[i]);
            if self.len + width > CAPACITY {
                break;
            }
            let mut w = 0;
            while w < width && i + w < bytes.len() {
                self.buf[self.len] = bytes[i + w];
                self.len += 1;
                w += 1;
            }
            i += width;
        }
        self
    }

    /// Appends `s` in upper case (ASCII).
    pub const fn upper(mut self, s: &str) -> Self {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < CAPACITY {
            self.buf[self.len] = bytes[i].to_ascii_uppercase();
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends a decimal integer.
    pub const fn int(self, v: i64) -> Self {
        let this = if v < 0 { self.str("-") } else { self };
        this.uint(v.unsigned_abs())
    }

    /// Appends a decimal unsigned integer.
    pub const fn uint(self, mut v: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (v % 10) as u8;
            n += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        let mut this = self;
        while n > 0 && this.len < CAPACITY {
            n -= 1;
            this.buf[this.len] = digits[n];
            this.len += 1;
        }
        this
    }

    /// Appends a builtin's name as users write it ([`Builtin::path`]).
    pub const fn path(self, b: &Builtin) -> Self {
        if is_default_arch(b.arch) {
            self.str(b.name)
        } else {
            self.str(b.arch).str("::").str(b.name)
        }
    }

    /// The text so far.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            // Unreachable: only whole characters are copied.
            Err(_) => "",
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Bytes of the UTF-8 character that starts with `b`.
const fn char_width(b: u8) -> usize {
    match b {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// `a == b` for strings, in `const`.
pub(crate) const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `arch` names the default architecture (which bare names mean).
pub(crate) const fn is_default_arch(arch: &str) -> bool {
    same_str(arch, crate::ARCHS[0].name)
}

/// A builtin's name as users write it; see [`Builtin::path`].
pub struct Path<'a>(pub(crate) &'a Builtin);

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !is_default_arch(self.0.arch) {
            write!(f, "{}::", self.0.arch)?;
        }
        f.write_str(self.0.name)
    }
}
