//! The 512-bit AXI-Stream conventions shared by the RTL blocks, and constant tables for them.
//!
//! A beat carries 64 bytes, byte 0 in `tdata[7:0]`. `tkeep` is contiguous from byte 0 (every
//! beat but a frame's last is full), so blocks carry a byte count (1..=64) internally and
//! convert at their edges. rust-hdl cannot widen or concatenate without Verilator WIDTH
//! warnings, so the tables below are built in plain Rust and used as `Constant`s.

use rust_hdl::prelude::*;

pub const BEAT_BYTES: usize = 64;

/// A 512-bit value from its bytes (byte 0 = bits 7:0).
pub fn bits512_from_bytes(bytes: &[u8]) -> Bits<512> {
    let mut b: Bits<512> = Bits::default();
    for (i, chunk) in bytes.chunks(8).enumerate().take(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        b.set_bits::<64>(i * 64, bits::<64>(u64::from_le_bytes(w)));
    }
    b
}

/// An N-bit constant.
pub fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(bits::<N>(v))
}

/// A big-endian 16-bit wire value (an EtherType, say) as it reads from `tdata` lanes, so raw
/// fields compare against constants without swapping the data.
pub fn wire16(v: u16) -> Constant<Bits<16>> {
    Constant::new(bits::<16>(v.swap_bytes() as u64))
}

/// `lanes()[i]` has byte lane i set to 0xFF.
pub fn lanes() -> [Constant<Bits<512>>; BEAT_BYTES] {
    std::array::from_fn(|i| {
        let mut bytes = [0u8; BEAT_BYTES];
        bytes[i] = 0xFF;
        Constant::new(bits512_from_bytes(&bytes))
    })
}

/// `numbers::<N, M>()[i]` is the N-bit constant i, for i in 0..M.
pub fn numbers<const N: usize, const M: usize>() -> [Constant<Bits<N>>; M] {
    std::array::from_fn(|i| Constant::new(bits::<N>(i as u64)))
}

/// `one_hot::<N>()[i]` has only bit i set.
pub fn one_hot<const N: usize>() -> [Constant<Bits<N>>; N] {
    std::array::from_fn(|i| {
        let mut b: Bits<N> = Bits::default();
        b = b.replace_bit(i, true);
        Constant::new(b)
    })
}

/// Reverses the byte order of a 512-bit word (pure wiring). Headers are big-endian on the wire
/// and land little-endian in `tdata`; in a reversed window every big-endian field reads as a
/// plain number: a field of `n` bytes at byte `o` sits at bit `8 * (64 - o - n)`.
///
/// rust-hdl has no concatenation, and spelling the permutation as 64 shifted, masked terms
/// made the Verilator model several times slower, so this leaf block provides its Verilog as
/// one concatenation; `update` is the same permutation for rust-hdl's own simulator.
#[derive(LogicBlock, Default)]
pub struct ByteReverse {
    pub a: Signal<In, Bits<512>>,
    pub y: Signal<Out, Bits<512>>,
}

impl Logic for ByteReverse {
    fn update(&mut self) {
        let a = self.a.val();
        let mut y: Bits<512> = Bits::default();
        for i in 0..BEAT_BYTES {
            y.set_bits::<8>(8 * (BEAT_BYTES - 1 - i), a.get_bits::<8>(8 * i));
        }
        self.y.next = y;
    }

    fn connect(&mut self) {
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        let bytes: Vec<String> = (0..BEAT_BYTES).map(|i| format!("a[{}:{}]", 8 * i + 7, 8 * i)).collect();
        Verilog::Custom(format!("always @(*) y = {{{}}};", bytes.join(", ")))
    }
}

/// Bit offset of a big-endian field of `len` bytes at byte `off` of a byte-reversed window.
pub fn field_bit(off: usize, len: usize) -> usize {
    assert!(off + len <= BEAT_BYTES, "field {off}+{len} outside the window");
    8 * (BEAT_BYTES - off - len)
}

/// [`field_bit`] as a constant for `get_bits` offsets.
pub fn field_at(off: usize, len: usize) -> Constant<Bits<9>> {
    Constant::new(bits::<9>(field_bit(off, len) as u64))
}

/// `tkeep` from a byte count (1..=64): lanes below the count are kept.
#[derive(LogicBlock)]
pub struct KeepFromCount {
    pub count: Signal<In, Bits<7>>,
    pub tkeep: Signal<Out, Bits<64>>,
    lane: [Constant<Bits<64>>; BEAT_BYTES],
}

impl Default for KeepFromCount {
    fn default() -> Self {
        Self { count: Default::default(), tkeep: Default::default(), lane: one_hot::<64>() }
    }
}

impl Logic for KeepFromCount {
    #[hdl_gen]
    fn update(&mut self) {
        self.tkeep.next = self.lane[0].val();
        for i in 1..64 {
            if self.count.val().index() > i {
                self.tkeep.next = self.tkeep.val() | self.lane[i].val();
            }
        }
    }
}
